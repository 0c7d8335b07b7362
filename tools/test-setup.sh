#!/bin/bash -xe
#
# Installs Debian's chromium and chromium-driver for the calendar's browser
# tests when they are absent (as root, with apt-get), and
# creates the database users and databases the opportunistic tests expect,
# as OpenStack CI's tools/test-setup.sh does: user openstack_citest with
# password openstack_citest and a database openstack_citest, on MySQL/MariaDB
# and PostgreSQL. oslo.db's opportunistic fixtures create and drop their own
# randomly named databases, so the user is also allowed to create databases.
#
# Idempotent: run it as often as you like. It works as root on a machine
# where `mysql -uroot` and `psql -U postgres` (or `sudo -u postgres psql`)
# reach the servers without a password; otherwise set MYSQL_ROOT_PW and/or
# PGPASSWORD. A server that is not installed or not running is skipped with
# a message (the matching tests then skip too).

DB_USER=${DB_USER:-openstack_citest}
DB_PW=${DB_PW:-openstack_citest}
DB_NAME=${DB_NAME:-openstack_citest}
DB_HOST=${DB_HOST:-127.0.0.1}

MYSQL_ARGS=()

mysql_root() {
    mysql "${MYSQL_ARGS[@]}" "$@"
}

# Picks how root reaches the server: the unix socket first (root often
# authenticates by socket), then TCP. Returns non-zero when neither works.
find_mysql_root() {
    local base=(-u root)
    if [ -n "${MYSQL_ROOT_PW:-}" ]; then
        base+=("-p${MYSQL_ROOT_PW}")
    fi
    for extra in "" "-h $DB_HOST"; do
        # shellcheck disable=SC2206
        MYSQL_ARGS=("${base[@]}" $extra)
        if mysql "${MYSQL_ARGS[@]}" -e 'SELECT 1' >/dev/null 2>&1; then
            return 0
        fi
    done
    return 1
}

setup_mysql() {
    if ! command -v mysql >/dev/null; then
        echo "mysql client not installed; skipping MySQL/MariaDB" >&2
        return 0
    fi
    if ! find_mysql_root; then
        echo "MySQL/MariaDB not reachable as root; skipping" >&2
        return 0
    fi
    mysql_root <<SQL
CREATE USER IF NOT EXISTS '${DB_USER}'@'%' IDENTIFIED BY '${DB_PW}';
CREATE USER IF NOT EXISTS '${DB_USER}'@'localhost' IDENTIFIED BY '${DB_PW}';
ALTER USER '${DB_USER}'@'%' IDENTIFIED BY '${DB_PW}';
ALTER USER '${DB_USER}'@'localhost' IDENTIFIED BY '${DB_PW}';
GRANT ALL PRIVILEGES ON *.* TO '${DB_USER}'@'%' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO '${DB_USER}'@'localhost' WITH GRANT OPTION;
CREATE DATABASE IF NOT EXISTS ${DB_NAME}
    CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci;
FLUSH PRIVILEGES;
SQL
}

psql_root() {
    if psql -h "$DB_HOST" -U postgres -d postgres -c 'SELECT 1' \
            >/dev/null 2>&1; then
        psql -h "$DB_HOST" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"
    elif command -v sudo >/dev/null && \
            sudo -n -u postgres psql -c 'SELECT 1' >/dev/null 2>&1; then
        sudo -n -u postgres psql -d postgres -v ON_ERROR_STOP=1 "$@"
    else
        return 2
    fi
}

setup_postgresql() {
    if ! command -v psql >/dev/null; then
        echo "psql not installed; skipping PostgreSQL" >&2
        return 0
    fi
    if ! psql_root -c 'SELECT 1' >/dev/null; then
        echo "PostgreSQL not reachable as postgres; skipping" >&2
        return 0
    fi
    psql_root <<SQL
DO \$\$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${DB_USER}') THEN
        CREATE ROLE ${DB_USER} LOGIN;
    END IF;
END
\$\$;
ALTER ROLE ${DB_USER} WITH LOGIN CREATEDB PASSWORD '${DB_PW}';
SQL
    if [ "$(psql_root -tAc \
            "SELECT 1 FROM pg_database WHERE datname = '${DB_NAME}'")" \
            != "1" ]; then
        psql_root -c "CREATE DATABASE ${DB_NAME} OWNER ${DB_USER}"
    fi
}

# The calendar's browser tests drive Debian's headless Chromium through
# its WebDriver (selenium from test-requirements.txt).
setup_chromium() {
    if command -v chromium >/dev/null && command -v chromedriver >/dev/null
    then
        return 0
    fi
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        echo "chromium or chromium-driver missing and cannot be installed" \
             "here (needs root and apt-get)" >&2
        return 0
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
        chromium-driver
}

setup_mysql
setup_postgresql
setup_chromium
