"""Serve Keystone's public WSGI application with cheroot.

Run it with the Python of the Keystone virtualenv (tools/keystone/
setup-venv.sh), after keystone-manage has set up the database and keys:

    .keystone-venv/bin/python tools/keystone/serve.py \
        --config-file /path/keystone.conf --port 5000

The API answers at http://HOST:PORT/v3. For tests and local trials only:
one process, a few threads, no TLS.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
import cheroot_serve  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--config-file', action='append', required=True,
                        help='May be given more than once; later files '
                             'override earlier ones.')
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--threads', type=int, default=8)
    args = parser.parse_args()

    # Keystone reads its configuration files from the environment
    # (absolute paths, ';'-separated, when no directory is given).
    os.environ.pop('OS_KEYSTONE_CONFIG_DIR', None)
    os.environ['OS_KEYSTONE_CONFIG_FILES'] = ';'.join(
        os.path.abspath(path) for path in args.config_file)
    # ... and parses the command line itself: leave it only the name.
    sys.argv = sys.argv[:1]

    from keystone.server import wsgi as keystone_wsgi

    return cheroot_serve.serve(
        keystone_wsgi.initialize_public_application(), args.host,
        args.port, args.threads,
        'Keystone listening on http://%s:%d/v3' % (args.host, args.port))


if __name__ == '__main__':
    sys.exit(main())
