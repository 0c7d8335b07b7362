"""blazar-ext-all-in-one: the embedded default on one machine.

API and manager in one process, a SQLite file under [DEFAULT] state_path,
oslo.messaging's in-process fake:// transport and noauth unless the
configuration says otherwise; migrations are applied on start.
"""

import os
import sys

from oslo_log import log as logging

from blazar_ext.api import app as api_app
from blazar_ext.cmd import listen
from blazar_ext.cmd import metadefs
from blazar_ext.cmd import startup
from blazar_ext import context
from blazar_ext.db.api.placement import resource_class
from blazar_ext.db.api.placement import trait
from blazar_ext.db import migration
from blazar_ext.manager import service as manager_service
from blazar_ext.rpc import manager_client
from blazar_ext import service
from blazar_ext.wsgi import server

CONF = service.CONF
LOG = logging.getLogger(__name__)

# Steps run at every start after migrations; each takes an admin
# RequestContext and does nothing when its work is already done.
FIRST_START_STEPS = [
    trait.sync_standard_traits,
    resource_class.sync_standard_classes,
    metadefs.load_shipped_on_first_start,
]


def apply_embedded_defaults() -> None:
    """The defaults the all-in-one runs with, under the configuration."""
    CONF.set_default('transport_url', 'fake:/')
    CONF.set_default('auth_strategy', 'noauth', group='api')


def main(argv: list[str] | None = None) -> int:
    apply_embedded_defaults()
    CONF.register_cli_opts(listen.CLI_OPTS)
    service.prepare('blazar-ext-all-in-one', argv)
    listen.apply_cli_opts(CONF)
    try:
        host = listen.api_host(CONF)
    except listen.InsecureNoAuth as exc:
        LOG.error('%s', exc)
        return 1
    os.makedirs(CONF.state_path, exist_ok=True)
    if not startup.ready(CONF, keystone=True, broker=True):
        return 1
    migration.upgrade('head')
    admin = context.get_admin_context()
    for step in FIRST_START_STEPS:
        step(admin)
    manager = manager_service.ManagerService()
    manager.start()
    if CONF.transport_url.startswith('fake:'):
        # Nothing else can reach an in-memory transport: call the manager
        # in this process directly.
        manager_client.serve_locally(manager.endpoint)
    LOG.info('Embedded blazar_ext: database %s, transport %s, auth %s',
             CONF.database.connection, CONF.transport_url,
             CONF.api.auth_strategy)
    try:
        # One process: the fake transport lives in this process's memory,
        # so the API cannot fork workers.
        with startup.metrics_for(CONF, 1) as parent_ready:
            server.serve(api_app.build, host, CONF.api.port, workers=1,
                         threads=CONF.api.threads,
                         keep_alive=CONF.api.keep_alive_connections,
                         parent_ready=parent_ready)
    finally:
        manager.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
