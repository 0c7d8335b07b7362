"""blazar-ext-placement-api: the placement-compatible API on its own.

Serves only the placement family, at the root of ``[placement_api] host``
and ``port`` (8778), as upstream's placement-api is deployed on its own
endpoint. It reads and writes the database directly, as Placement does,
so it needs no message broker and no manager; run it beside
blazar-ext-api (or the all-in-one) on the same database.
"""

import sys

from oslo_config import cfg
from oslo_log import log as logging

from blazar_ext.api import app as api_app
from blazar_ext.cmd import listen
from blazar_ext.cmd import startup
from blazar_ext import service
from blazar_ext.wsgi import server

CONF = service.CONF
LOG = logging.getLogger(__name__)

CLI_OPTS = [
    cfg.IntOpt('workers', min=1,
               help='Worker processes sharing the listening socket; '
                    'overrides [placement_api] workers.'),
]


def main(argv: list[str] | None = None) -> int:
    CONF.register_cli_opts(CLI_OPTS + listen.CLI_OPTS)
    service.prepare('blazar-ext-placement-api', argv)
    listen.apply_cli_opts(CONF, group='placement_api')
    port = CONF.placement_api.port
    try:
        host = listen.api_host(CONF, CONF.placement_api.host, port)
    except listen.InsecureNoAuth as exc:
        LOG.error('%s', exc)
        return 1
    if not startup.ready(CONF, keystone=True):
        return 1
    workers = CONF.workers or CONF.placement_api.workers
    with startup.metrics_for(CONF, workers) as parent_ready:
        server.serve(api_app.build_placement, host, port, workers=workers,
                     threads=CONF.api.threads,
                     keep_alive=CONF.api.keep_alive_connections,
                     name='blazar-ext-placement-api',
                     parent_ready=parent_ready)
    return 0


if __name__ == '__main__':
    sys.exit(main())
