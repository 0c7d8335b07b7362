"""blazar-ext-api: the API server."""

import sys

from blazar_ext.api import app as api_app
from blazar_ext import service
from blazar_ext.wsgi import server

CONF = service.CONF


def main(argv: list[str] | None = None) -> int:
    service.prepare('blazar-ext-api', argv)
    server.serve(api_app.build, CONF.api.host, CONF.api.port,
                 workers=CONF.api.workers, threads=CONF.api.threads)
    return 0


if __name__ == '__main__':
    sys.exit(main())
