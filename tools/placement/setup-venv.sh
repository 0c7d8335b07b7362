#!/usr/bin/env bash
# A private virtualenv with upstream OpenStack Placement 16.0.0 (from PyPI),
# a WSGI server and the MySQL and PostgreSQL drivers, for
# tools/bench/placement.py's side-by-side run (tools/placement/serve.py
# serves it).
#
# Placement pins its own versions of the oslo libraries and SQLAlchemy, so
# it lives apart from blazar_ext's environment. The bench looks for it at
# $BLAZAR_EXT_PLACEMENT_VENV, else .placement-venv/ in the repository root.
#
# Usage: tools/placement/setup-venv.sh [VENV_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${1:-${BLAZAR_EXT_PLACEMENT_VENV:-$PWD/.placement-venv}}
python=${PYTHON:-python3}

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c \
        'import placement.deploy, cheroot.wsgi, pymysql, psycopg2' \
        2>/dev/null; then
    echo "Placement venv ready at $venv"
    exit 0
fi
"$python" -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q openstack-placement==16.0.0 cheroot PyMySQL \
    psycopg2-binary
"$venv/bin/python" -c 'import placement.deploy, cheroot.wsgi, pymysql, psycopg2'
echo "Placement venv ready at $venv"
