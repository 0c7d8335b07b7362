#!/usr/bin/env bash
# A private virtualenv with a real Keystone (from PyPI) and a WSGI server,
# for blazar_ext/tests/functional/test_keystone_auth.py.
#
# Keystone pins its own versions of the oslo libraries and SQLAlchemy, so
# it lives apart from blazar_ext's environment. The test looks for it at
# $BLAZAR_EXT_KEYSTONE_VENV, else .keystone-venv/ in the repository root,
# and skips when it is absent.
#
# Usage: tools/keystone/setup-venv.sh [VENV_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${1:-${BLAZAR_EXT_KEYSTONE_VENV:-$PWD/.keystone-venv}}
python=${PYTHON:-python3}

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c \
        'import keystone.server.wsgi, cheroot.wsgi' 2>/dev/null; then
    echo "Keystone venv ready at $venv"
    exit 0
fi
"$python" -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q keystone cheroot
"$venv/bin/python" -c 'import keystone.server.wsgi, cheroot.wsgi'
echo "Keystone venv ready at $venv"
