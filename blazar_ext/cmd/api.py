"""blazar-ext-api: the API server."""

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
               help='API worker processes sharing the listening socket; '
                    'overrides [api] workers.'),
]


def main(argv: list[str] | None = None) -> int:
    CONF.register_cli_opts(CLI_OPTS + listen.CLI_OPTS)
    service.prepare('blazar-ext-api', argv)
    listen.apply_cli_opts(CONF)
    try:
        host = listen.api_host(CONF)
    except listen.InsecureNoAuth as exc:
        LOG.error('%s', exc)
        return 1
    if not startup.ready(CONF, keystone=True, broker=True):
        return 1
    workers = CONF.workers or CONF.api.workers
    with startup.metrics_for(CONF, workers) as parent_ready:
        server.serve(api_app.build, host, CONF.api.port, workers=workers,
                     threads=CONF.api.threads,
                     keep_alive=CONF.api.keep_alive_connections,
                     parent_ready=parent_ready)
    return 0


if __name__ == '__main__':
    sys.exit(main())
