#!/bin/bash
#
# Runs the devstack plugin's phases (devstack/plugin.sh) on this machine,
# without devstack and without Keystone: install into a fresh virtualenv
# (blazar_ext and uwsgi from PyPI), configure blazar-ext.conf from the
# generator, create the database and migrate it, sync traits, load the
# metadefs, run blazar-ext-status, then start the API under uwsgi and the
# manager, and check that the API answers, including a write that goes
# through the manager over RabbitMQ.
#
# The few devstack functions the plugin calls are defined below with the
# same arguments, doing the same thing on this machine.
#
#   tools/devstack-check.sh
#
# Environment:
#   BLAZAR_EXT_CHECK_DB         mysql (the local MariaDB/MySQL, user
#                               openstack_citest as made by tools/test-setup.sh)
#                               or sqlite; default: mysql when it answers,
#                               sqlite otherwise
#   BLAZAR_EXT_CHECK_TRANSPORT  transport_url; default RabbitMQ guest/guest
#                               on 127.0.0.1:5672
#   BLAZAR_EXT_CHECK_VENV       an existing virtualenv to install into
#                               instead of a fresh one
#   BLAZAR_EXT_CHECK_KEEP       1 keeps the work directory for inspection
#
# Exits 0 when every step worked and the API answered as expected.

set -o errexit -o nounset -o pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/blazar-ext-devstack-check.XXXXXX")
PIDS=()

DB_CREATED=0

# stop_group pid: TERM, then KILL if the process group is still there after
# 30 seconds (a uwsgi worker still loading the application can miss the
# master's graceful shutdown).
stop_group() {
    local pid=$1
    kill -TERM -- "-$pid" 2>/dev/null || return 0
    local deadline=$((SECONDS + 30))
    while kill -0 -- "-$pid" 2>/dev/null && (( SECONDS < deadline )); do
        sleep 1
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    local rc=$?
    set +o xtrace
    local pid
    for pid in "${PIDS[@]}"; do
        stop_group "$pid"
    done
    if [[ $DB_CREATED == 1 ]]; then
        drop_check_database
    fi
    if [[ $rc -ne 0 ]]; then
        for log in "$WORK"/logs/*.log; do
            [[ -f "$log" ]] || continue
            echo "---- last lines of $log"
            tail -n 40 "$log"
        done
    fi
    if [[ "${BLAZAR_EXT_CHECK_KEEP:-0}" == "1" ]]; then
        echo "Work directory kept: $WORK"
    else
        rm -rf "$WORK"
    fi
    if [[ $rc -eq 0 ]]; then
        echo "devstack-check: PASSED"
    else
        echo "devstack-check: FAILED (exit $rc)"
    fi
}
trap cleanup EXIT

# ---------------------------------------------------------------------------
# devstack's variables, pointed at the work directory
DEST=$WORK/opt
DATA_DIR=$WORK/data
STACK_USER=$(id -un)
SERVICE_HOST=127.0.0.1
SERVICE_PROTOCOL=http
SERVICE_TIMEOUT=120
ENABLE_DEBUG_LOG_LEVEL=True
REGION_NAME=RegionOne
GLOBAL_VENV=True
DEVSTACK_VENV=${BLAZAR_EXT_CHECK_VENV:-$WORK/venv}
ENABLED_SERVICES=""

BLAZAR_EXT_DIR=$TOP
BLAZAR_EXT_CONF_DIR=$WORK/etc/blazar-ext
BLAZAR_EXT_AUTH_CACHE_DIR=$WORK/cache/blazar-ext
BLAZAR_EXT_SERVICE_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BLAZAR_EXT_DB_NAME=blazar_ext_devstack_check_$$

mkdir -p "$DEST" "$DATA_DIR" "$WORK/logs"

# ---------------------------------------------------------------------------
# The devstack functions the plugin calls

function echo_summary {
    echo "==== $*"
}

function die {
    local line=$1
    shift
    echo "ERROR at plugin line $line: $*" >&2
    exit 1
}

function enable_service {
    local service
    for service in "$@"; do
        ENABLED_SERVICES="$ENABLED_SERVICES,$service"
    done
}

function disable_service {
    local service
    for service in "$@"; do
        ENABLED_SERVICES=${ENABLED_SERVICES//,$service/}
    done
}

# True if any of the services is enabled (Keystone is not, here).
function is_service_enabled {
    local service
    for service in "$@"; do
        [[ ",$ENABLED_SERVICES," == *",$service,"* ]] && return 0
    done
    return 1
}

function sudo {
    "$@"
}

function get_python_exec_prefix {
    dirname "$(command -v python3)"
}

function pip_install {
    if [[ ! -x "$DEVSTACK_VENV/bin/python" ]]; then
        python3 -m venv "$DEVSTACK_VENV"
    fi
    "$DEVSTACK_VENV/bin/pip" install -q "$@"
}

function setup_develop {
    pip_install -e "$1"
}

# iniset [-sudo] config-file section option value
function iniset {
    [[ "$1" == "-sudo" ]] && shift
    python3 - "$@" <<'EOF'
import re
import sys

path, section, option, value = sys.argv[1:5]
with open(path) as f:
    lines = f.read().splitlines()
header = re.compile(r'^\s*\[(.+)\]\s*$')
start = next((i for i, line in enumerate(lines)
              if header.match(line) and header.match(line).group(1) == section),
             None)
if start is None:
    lines += ['', '[%s]' % section, '%s = %s' % (option, value)]
else:
    end = next((i for i in range(start + 1, len(lines))
                if header.match(lines[i])), len(lines))
    setting = re.compile(r'^\s*%s\s*=' % re.escape(option))
    found = next((i for i in range(start + 1, end)
                  if setting.match(lines[i])), None)
    if found is None:
        lines.insert(start + 1, '%s = %s' % (option, value))
    else:
        lines[found] = '%s = %s' % (option, value)
with open(path, 'w') as f:
    f.write('\n'.join(lines) + '\n')
EOF
}

function iniset_rpc_backend {
    local file=$2
    local section=$3
    iniset "$file" "$section" transport_url "$TRANSPORT_URL"
}

function database_connection_url {
    local db=$1
    if [[ "$CHECK_DB" == "mysql" ]]; then
        echo "mysql+pymysql://openstack_citest:openstack_citest@127.0.0.1/$db?charset=utf8mb4"
    else
        echo "sqlite:///$DATA_DIR/$db.sqlite"
    fi
}

function _mysql {
    python3 - "$@" <<'EOF'
import sys

import pymysql

conn = pymysql.connect(host='127.0.0.1', user='openstack_citest',
                       password='openstack_citest', connect_timeout=3)
with conn.cursor() as cursor:
    for statement in sys.argv[1:]:
        cursor.execute(statement)
conn.commit()
EOF
}

function recreate_database {
    local db=$1
    if [[ "$CHECK_DB" == "mysql" ]]; then
        DB_CREATED=1
        PATH="$DEVSTACK_VENV/bin:$PATH" _mysql \
            "DROP DATABASE IF EXISTS $db" \
            "CREATE DATABASE $db CHARACTER SET utf8mb4"
    else
        rm -f "$DATA_DIR/$db.sqlite"
    fi
}

function drop_check_database {
    if [[ "$CHECK_DB" == "mysql" ]]; then
        PATH="$DEVSTACK_VENV/bin:$PATH" _mysql \
            "DROP DATABASE IF EXISTS $BLAZAR_EXT_DB_NAME" || true
    fi
}

# run_process name command: in the background, output in logs/name.log
function run_process {
    local name=$1
    local command=$2
    # shellcheck disable=SC2086
    setsid $command > "$WORK/logs/$name.log" 2>&1 &
    PIDS+=("$!")
    echo "$!" > "$WORK/logs/$name.pid"
}

function stop_process {
    local name=$1
    local pidfile="$WORK/logs/$name.pid"
    if [[ -f "$pidfile" ]]; then
        stop_group "$(cat "$pidfile")"
        rm -f "$pidfile"
    fi
}

function wait_for_service {
    local timeout=$1
    local url=$2
    local deadline=$((SECONDS + timeout))
    while (( SECONDS < deadline )); do
        if curl -s -o /dev/null "$url"; then
            return 0
        fi
        sleep 1
    done
    return 1
}

# ---------------------------------------------------------------------------
# Backends

if [[ -z "${BLAZAR_EXT_CHECK_DB:-}" ]]; then
    if python3 -c 'import socket; socket.create_connection(("127.0.0.1", 3306), 2)' 2>/dev/null; then
        CHECK_DB=mysql
    else
        CHECK_DB=sqlite
    fi
else
    CHECK_DB=$BLAZAR_EXT_CHECK_DB
fi
TRANSPORT_URL=${BLAZAR_EXT_CHECK_TRANSPORT:-rabbit://guest:guest@127.0.0.1:5672/}
echo "devstack-check: database $CHECK_DB, transport ${TRANSPORT_URL%%:*}, work directory $WORK"

# devstack installs the database's Python driver before any plugin runs.
if [[ "$CHECK_DB" == "mysql" ]]; then
    pip_install PyMySQL
fi

# ---------------------------------------------------------------------------
# The plugin, phase by phase

# shellcheck source=devstack/settings
source "$TOP/devstack/settings"

for phase in "stack install" "stack post-config" "stack extra"; do
    # shellcheck disable=SC2086
    set -- $phase
    # shellcheck source=devstack/plugin.sh
    source "$TOP/devstack/plugin.sh"
done
set +o xtrace

ENDPOINT=$(blazar_ext_endpoint_url)

fail() {
    echo "devstack-check: $*" >&2
    exit 1
}

# GET url [header...]: the body; fails unless the status is 200.
get() {
    local url=$1
    shift
    local args=(-s -w '\n%{http_code}' -H 'X-Auth-Token: admin')
    local header
    for header in "$@"; do
        args+=(-H "$header")
    done
    local out
    out=$(curl "${args[@]}" "$ENDPOINT$url")
    [[ "${out##*$'\n'}" == "200" ]] || fail "GET $url answered ${out##*$'\n'}: ${out%$'\n'*}"
    echo "${out%$'\n'*}"
}

echo "==== Checking the API at $ENDPOINT"
versions=$(curl -s "$ENDPOINT/")
[[ "$versions" == *'"v1.0"'* ]] || fail "GET / does not list v1.0: $versions"
get /v1/os-hosts | grep -q '"hosts"' || fail "GET /v1/os-hosts has no hosts"
get /placement/traits 'OpenStack-API-Version: placement 1.39' \
    | grep -q 'HW_CPU_X86_AVX2' || fail "traits sync did not add HW_CPU_X86_AVX2"
get /v2/metadefs/namespaces \
    | grep -q 'OS::Blazar::HostCapabilities' || fail "metadefs load did not load OS::Blazar::HostCapabilities"

# A write: the API calls the manager over the transport.
created=$(curl -s -w '\n%{http_code}' -H 'X-Auth-Token: admin' \
    -H 'Content-Type: application/json' \
    -d '{"name": "devstack-check-host", "gpu": "true"}' \
    "$ENDPOINT/v1/os-hosts")
[[ "${created##*$'\n'}" == "201" || "${created##*$'\n'}" == "200" ]] \
    || fail "POST /v1/os-hosts answered ${created##*$'\n'}: ${created%$'\n'*}"
get /v1/os-hosts | grep -q 'devstack-check-host' \
    || fail "the host created through the manager is not listed"
echo "==== The API answered: versions, hosts (read and write via the manager), traits, metadefs"

set -- unstack
# shellcheck source=devstack/plugin.sh
source "$TOP/devstack/plugin.sh"
set +o xtrace

if curl -s -o /dev/null "$ENDPOINT/"; then
    fail "the API still answers after unstack"
fi
