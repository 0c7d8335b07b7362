#!/bin/bash
#
# devstack plugin for blazar_ext: the reservation service with its
# Placement-compatible and Glance metadefs-compatible APIs.
#
# Phases (devstack calls this file with them):
#   stack install      install_blazar_ext
#   stack post-config  configure_blazar_ext, create_blazar_ext_accounts
#   stack extra        init_blazar_ext, start_blazar_ext
#   unstack            stop_blazar_ext
#   clean              cleanup_blazar_ext
#
# tools/devstack-check.sh runs the same functions outside devstack.

# Save trace setting
_XTRACE_BLAZAR_EXT=$(set +o | grep xtrace)
set -o xtrace

# install_blazar_ext - the package and uwsgi
function install_blazar_ext {
    setup_develop "$BLAZAR_EXT_DIR"
    # uwsgi from PyPI carries its own Python plugin, so the same ini file
    # works on every distribution.
    pip_install uwsgi
}

# configure_blazar_ext - blazar-ext.conf from the generator, and uwsgi
function configure_blazar_ext {
    sudo install -d -o "$STACK_USER" "$BLAZAR_EXT_CONF_DIR"
    sudo install -d -o "$STACK_USER" "$BLAZAR_EXT_STATE_PATH"

    (cd "$BLAZAR_EXT_DIR" && "$BLAZAR_EXT_BIN_DIR/oslo-config-generator" \
        --config-file etc/blazar-ext/blazar-ext-config-generator.conf \
        --output-file "$BLAZAR_EXT_CONF_FILE")

    iniset "$BLAZAR_EXT_CONF_FILE" DEFAULT debug "$ENABLE_DEBUG_LOG_LEVEL"
    iniset "$BLAZAR_EXT_CONF_FILE" DEFAULT state_path "$BLAZAR_EXT_STATE_PATH"
    iniset "$BLAZAR_EXT_CONF_FILE" DEFAULT host "$(hostname)"
    iniset "$BLAZAR_EXT_CONF_FILE" database connection \
        "$(database_connection_url "$BLAZAR_EXT_DB_NAME")"
    iniset_rpc_backend blazar-ext "$BLAZAR_EXT_CONF_FILE" DEFAULT
    iniset "$BLAZAR_EXT_CONF_FILE" metadefs definitions_dir \
        "$BLAZAR_EXT_DIR/etc/blazar-ext/metadefs"

    if is_service_enabled keystone; then
        iniset "$BLAZAR_EXT_CONF_FILE" api auth_strategy keystone
        sudo install -d -o "$STACK_USER" "$BLAZAR_EXT_AUTH_CACHE_DIR"
        configure_keystone_authtoken_middleware "$BLAZAR_EXT_CONF_FILE" \
            "$BLAZAR_EXT_USER_NAME"
        # The service user's credentials for enforcement filters, which
        # resolve project names and call the external service.
        configure_keystone_authtoken_middleware "$BLAZAR_EXT_CONF_FILE" \
            "$BLAZAR_EXT_USER_NAME" enforcement_keystone
        iniset "$BLAZAR_EXT_CONF_FILE" enforcement_keystone region_name \
            "$REGION_NAME"
    else
        iniset "$BLAZAR_EXT_CONF_FILE" api auth_strategy noauth
    fi

    _write_blazar_ext_uwsgi_config
}

# _write_blazar_ext_uwsgi_config - the shipped sample with this host's
# socket, virtualenv and worker count
function _write_blazar_ext_uwsgi_config {
    cp "$BLAZAR_EXT_DIR/etc/blazar-ext/api-uwsgi.ini" "$BLAZAR_EXT_UWSGI_CONF"
    iniset "$BLAZAR_EXT_UWSGI_CONF" uwsgi module "$BLAZAR_EXT_UWSGI_APP"
    iniset "$BLAZAR_EXT_UWSGI_CONF" uwsgi http-socket \
        "$BLAZAR_EXT_SERVICE_HOST:$BLAZAR_EXT_SERVICE_PORT"
    iniset "$BLAZAR_EXT_UWSGI_CONF" uwsgi processes "$BLAZAR_EXT_API_WORKERS"
    iniset "$BLAZAR_EXT_UWSGI_CONF" uwsgi env \
        "BLAZAR_EXT_CONFIG_FILE=$BLAZAR_EXT_CONF_FILE"
    iniset "$BLAZAR_EXT_UWSGI_CONF" uwsgi procname-prefix blazar-ext-api
    if [[ -n "$BLAZAR_EXT_VENV" ]]; then
        iniset "$BLAZAR_EXT_UWSGI_CONF" uwsgi home "$BLAZAR_EXT_VENV"
    fi
}

# create_blazar_ext_accounts - the service user, the service and its
# endpoint in Keystone
function create_blazar_ext_accounts {
    create_service_user "$BLAZAR_EXT_USER_NAME" admin

    local service
    service=$(get_or_create_service "$BLAZAR_EXT_SERVICE_NAME" \
        "$BLAZAR_EXT_SERVICE_TYPE" "Reservation service (blazar_ext)")
    get_or_create_endpoint "$service" "$REGION_NAME" \
        "$(blazar_ext_endpoint_url)/v1"
}

# blazar_ext_endpoint_url - where the API answers
function blazar_ext_endpoint_url {
    echo "$BLAZAR_EXT_SERVICE_PROTOCOL://$BLAZAR_EXT_SERVICE_HOST:$BLAZAR_EXT_SERVICE_PORT"
}

# init_blazar_ext - a fresh database at head, standard traits, metadefs
function init_blazar_ext {
    recreate_database "$BLAZAR_EXT_DB_NAME"
    "$BLAZAR_EXT_BIN_DIR/blazar-ext-db-manage" \
        --config-file "$BLAZAR_EXT_CONF_FILE" upgrade
    "$BLAZAR_EXT_BIN_DIR/blazar-ext-manage" \
        --config-file "$BLAZAR_EXT_CONF_FILE" traits sync
    "$BLAZAR_EXT_BIN_DIR/blazar-ext-manage" \
        --config-file "$BLAZAR_EXT_CONF_FILE" metadefs load
    "$BLAZAR_EXT_BIN_DIR/blazar-ext-status" \
        --config-file "$BLAZAR_EXT_CONF_FILE" upgrade check
}

# start_blazar_ext - the API under uwsgi and the manager
function start_blazar_ext {
    run_process blazar-ext-api \
        "$BLAZAR_EXT_BIN_DIR/uwsgi --ini $BLAZAR_EXT_UWSGI_CONF"
    run_process blazar-ext-manager \
        "$BLAZAR_EXT_BIN_DIR/blazar-ext-manager --config-file $BLAZAR_EXT_CONF_FILE"

    echo "Waiting for the blazar_ext API to answer at $(blazar_ext_endpoint_url)"
    if ! wait_for_service "$SERVICE_TIMEOUT" "$(blazar_ext_endpoint_url)"; then
        die "$LINENO" "blazar_ext API did not start"
    fi
}

# stop_blazar_ext - both services
function stop_blazar_ext {
    stop_process blazar-ext-api
    stop_process blazar-ext-manager
}

# cleanup_blazar_ext - what configure and init left behind
function cleanup_blazar_ext {
    sudo rm -rf "$BLAZAR_EXT_CONF_DIR" "$BLAZAR_EXT_AUTH_CACHE_DIR" \
        "$BLAZAR_EXT_STATE_PATH"
}

if is_service_enabled blazar-ext-api blazar-ext-manager; then
    if [[ "${1:-}" == "stack" && "${2:-}" == "install" ]]; then
        echo_summary "Installing blazar_ext"
        install_blazar_ext
    elif [[ "${1:-}" == "stack" && "${2:-}" == "post-config" ]]; then
        echo_summary "Configuring blazar_ext"
        configure_blazar_ext
        if is_service_enabled keystone; then
            create_blazar_ext_accounts
        fi
    elif [[ "${1:-}" == "stack" && "${2:-}" == "extra" ]]; then
        echo_summary "Initializing and starting blazar_ext"
        init_blazar_ext
        start_blazar_ext
    fi

    if [[ "${1:-}" == "unstack" ]]; then
        stop_blazar_ext
    fi

    if [[ "${1:-}" == "clean" ]]; then
        cleanup_blazar_ext
    fi
fi

# Restore xtrace
$_XTRACE_BLAZAR_EXT
