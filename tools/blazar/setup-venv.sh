#!/usr/bin/env bash
# A private virtualenv with upstream Blazar 18.0.0 (from PyPI), for the
# side-by-side benchmarks in tools/bench/, the differential test of the v1
# API (test_upstream_differential, through tools/blazar/upstream_server.py)
# and the adoption tests that build a real upstream Blazar database with
# its own migrations (blazar-db-manage upgrade head).
#
# Upstream Blazar pins its own oslo libraries, so it lives apart from
# blazar_ext's environment. Users look for it at $BLAZAR_EXT_UPSTREAM_VENV,
# else .blazar-venv/ in the repository root.
#
# Usage: tools/blazar/setup-venv.sh [VENV_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${1:-${BLAZAR_EXT_UPSTREAM_VENV:-$PWD/.blazar-venv}}
python=${PYTHON:-python3}
version=18.0.0

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c \
        "import importlib.metadata as m, sys; \
sys.exit(m.version('blazar') != '$version')" 2>/dev/null; then
    echo "Upstream Blazar venv ready at $venv"
    exit 0
fi
"$python" -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q "blazar==$version" PyMySQL psycopg2-binary
"$venv/bin/python" -c 'import blazar.db.migration.cli'
echo "Upstream Blazar venv ready at $venv"
