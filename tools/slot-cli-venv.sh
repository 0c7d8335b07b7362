#!/bin/bash
# The slot commands (openstack reservation slot find|book, lease extension
# show) from a fresh virtualenv: python-openstackclient, python-blazarclient
# and this project installed with pip into it, then the CLI tests
# (blazar_ext.tests.functional.api.test_slot_cli) run that virtualenv's
# real `openstack` against a server of the test environment.
#
#   tools/slot-cli-venv.sh [VENV_DIR]     (default: a temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-$(mktemp -d)/venv}
python3 -m venv "$venv"
"$venv/bin/pip" install -q python-openstackclient python-blazarclient .
# No test-environment package leaks in: the commands come from the venv.
"$venv/bin/openstack" reservation slot find --help > /dev/null
BLAZAR_EXT_OPENSTACK="$venv/bin/openstack" \
    .tox/functional/bin/python -m stestr run test_slot_cli
