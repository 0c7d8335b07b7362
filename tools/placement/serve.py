"""Serve upstream Placement's WSGI application with cheroot, under noauth2.

Run it with the Python of the Placement virtualenv (tools/placement/
setup-venv.sh); tools/bench/placement.py starts it for its side-by-side
run:

    .placement-venv/bin/python tools/placement/serve.py \
        --database sqlite:////tmp/placement.sqlite --port 8778

It writes a placement.conf beside --log-file (or in a temporary
directory): ``[api] auth_strategy = noauth2``, the database, and
``sync_on_startup`` so Placement makes its schema and syncs its standard
traits and resource classes as it starts. Placement's own code is used
as released; nothing of it is changed. The API answers at
http://HOST:PORT/ (Placement's root, no /placement prefix). For tests and
local trials only: one process, a few threads, no TLS.
"""

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
import cheroot_serve  # noqa: E402

CONFIG = """[DEFAULT]
debug = false
log_file = {log_file}
[api]
auth_strategy = noauth2
[placement_database]
connection = {database}
sync_on_startup = true
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--database', required=True,
                        help='SQLAlchemy URL of the database to use.')
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--threads', type=int, default=16)
    parser.add_argument('--log-file')
    args = parser.parse_args()

    log_file = args.log_file or os.path.join(
        tempfile.mkdtemp(prefix='placement-'), 'placement.log')
    confdir = os.path.dirname(os.path.abspath(log_file))
    with open(os.path.join(confdir, 'placement.conf'), 'w') as f:
        f.write(CONFIG.format(log_file=log_file, database=args.database))
    # Placement finds its configuration through the environment and
    # parses no command line of ours.
    os.environ['OS_PLACEMENT_CONFIG_DIR'] = confdir
    sys.argv = sys.argv[:1]

    from placement import wsgi as placement_wsgi

    return cheroot_serve.serve(
        placement_wsgi.init_application(), args.host, args.port,
        args.threads,
        'Placement listening on http://%s:%d/' % (args.host, args.port))


if __name__ == '__main__':
    sys.exit(main())
