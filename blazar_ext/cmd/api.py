"""blazar-ext-api: the API server."""

import sys

from blazar_ext.api import app as api_app
from blazar_ext.cmd import common
from blazar_ext.wsgi import server

CONF = common.CONF


def main(argv: list[str] | None = None) -> int:
    common.prepare('blazar-ext-api', argv)
    server.serve(api_app.build, CONF.api.host, CONF.api.port,
                 workers=CONF.api.workers, threads=CONF.api.threads)
    return 0


if __name__ == '__main__':
    sys.exit(main())
