#!/usr/bin/env python3
"""Upstream Blazar 18.0.0's v1 API in one process, with stand-ins for the
services it needs (Keystone, Nova, Placement, Neutron).

Runs in upstream's own venv (tools/blazar/setup-venv.sh); it never edits
upstream's files. Its manager is called directly where the API would call
it over RPC (the result goes through JSON as over the wire). Used by the
side-by-side bench (tools/bench/upstream.py) and the differential test
(blazar_ext/tests/functional/api/test_upstream_differential.py).

    python upstream_server.py --database URL [--port P] [--events S]
        [--plugins physical.host.plugin,virtual.floatingip.plugin]

prints ``serving PORT`` once it answers. With ``--events S`` the
manager's event loop runs every S seconds, as blazar-manager's does.

The stand-ins: every host name is a hypervisor with the HOST details
below and no servers; every network has one subnet, NETWORK_CIDR, whose
addresses from .2 to .99 (and the gateway, .1) are Neutron's own; floating
IPs made at lease start are accepted and forgotten.
"""

import argparse
import contextlib
import json
import os
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from wsgiref import simple_server

# Upstream's manager looks up Keystone's URL in the caller's catalog.
CATALOG = json.dumps([{'type': 'identity', 'name': 'keystone', 'endpoints': [
    {'interface': interface, 'region': 'RegionOne',
     'url': 'http://127.0.0.1:5000/v3'}
    for interface in ('public', 'internal', 'admin')]}])
# What the Nova stand-in says of every host; blazar_ext registers a host
# with these values when they are given in the request.
HOST = {'vcpus': 8, 'cpu_info': 'x86_64', 'hypervisor_type': 'QEMU',
        'hypervisor_version': 6002000, 'memory_mb': 16384, 'local_gb': 100}
NETWORK_CIDR = '172.24.4.0/24'
HOST_PLUGIN = 'physical.host.plugin'
ALL_PLUGINS = 'physical.host.plugin,virtual.floatingip.plugin'


def configure(database: str, plugins: str = HOST_PLUGIN) -> str:
    """Upstream's configuration for ``database``; the config file's path."""
    from oslo_config import cfg
    path = os.path.join(tempfile.mkdtemp(prefix='blazar-up-'), 'blazar.conf')
    with open(path, 'w') as f:
        f.write('[DEFAULT]\ntransport_url = fake:/\n'
                '[database]\nconnection = %s\n'
                '[manager]\nplugins = %s\n'
                '[oslo_messaging_notifications]\ndriver = noop\n'
                % (database, plugins))
    # Every module that registers options, before they are parsed.
    from blazar.api.v1 import app  # noqa: F401
    from blazar import config  # noqa: F401
    from blazar.manager import service  # noqa: F401
    from blazar.plugins.floatingips import floatingip_plugin  # noqa: F401
    from blazar.plugins.oshosts import host_plugin  # noqa: F401
    from blazar.utils.openstack import keystone  # noqa: F401
    from oslo_log import log
    log.register_options(cfg.CONF)
    cfg.CONF([], project='blazar', default_config_files=[path])
    # INFO, as a deployed blazar-api logs (its request log answers only
    # then), to a file beside the configuration.
    cfg.CONF.set_override('log_file', os.path.join(os.path.dirname(path),
                                                   'blazar.log'))
    log.setup(cfg.CONF, 'blazar')
    return path


def migrate(config_file: str, database: str) -> None:
    """Upstream's schema: its own migrations, by its own command; on
    SQLite (where they stop at an ALTER COLUMN) and PostgreSQL (where
    revision 75a74e4539cb reflects ``leases`` through another connection,
    which cannot see the tables its transaction has created yet) its
    models' tables, as its own unit tests make them. An in-memory SQLite
    database (``sqlite://``) lives in this process: upstream's lease
    creation holds a read transaction open on one connection while it
    writes on another, which a SQLite file refuses (database is locked)."""
    if database in ('sqlite://', 'sqlite:///:memory:'):
        # One connection, the service's own (oslo.db's StaticPool).
        from blazar.db.sqlalchemy import facade_wrapper
        from blazar.db.sqlalchemy import models
        models.Lease.metadata.create_all(
            facade_wrapper._get_facade().writer.get_engine())
        return
    if database.startswith(('sqlite', 'postgresql')):
        from blazar.db.sqlalchemy import models
        import sqlalchemy as sa
        engine = sa.create_engine(database)
        models.Lease.metadata.create_all(engine)
        engine.dispose()
        return
    subprocess.run([os.path.join(os.path.dirname(sys.executable),
                                 'blazar-db-manage'),
                    '--config-file', config_file, 'upgrade', 'head'],
                   check=True, stdout=subprocess.DEVNULL)


# --- Stand-ins for Keystone, Nova, Placement and Neutron ---------------------

class _Trust:
    def __init__(self):
        self.id = str(uuid.uuid4())


class _Aggregate:
    def __init__(self):
        self.id = 1
        self.name = 'bench'


class _Accepting:
    """Any call is accepted and forgotten."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


class _ReservationPool(_Accepting):
    """Nova host aggregates: accepted and forgotten, always empty."""

    def create(self, name=None, az=None, metadata=None):
        return _Aggregate()

    def get_computehosts(self, *args, **kwargs):
        return []


class _Placement(_Accepting):
    """Every host is a resource provider with HOST's inventory and no
    traits."""

    def get_resource_provider(self, name):
        return {'uuid': str(uuid.uuid5(uuid.NAMESPACE_DNS, name)),
                'name': name}

    def get_inventory(self, rp_uuid):
        def inventory(total):
            return {'total': total, 'reserved': 0, 'min_unit': 1,
                    'max_unit': total, 'step_size': 1,
                    'allocation_ratio': 1.0}
        return {'inventories': {
            'VCPU': inventory(HOST['vcpus']),
            'MEMORY_MB': inventory(HOST['memory_mb']),
            'DISK_GB': inventory(HOST['local_gb'])}}

    def get_traits(self, rp_uuid):
        return []


class _Servers:
    def list(self, *args, **kwargs):
        return []


class _Nova:
    servers = _Servers()


class _NovaInventory:
    """Every host exists, with HOST's details and no servers."""

    def __init__(self, *args, **kwargs):
        pass

    def get_host_details(self, host):
        # Nova's API since microversion 2.53 names hypervisors by uuid.
        return dict(HOST, id=str(uuid.uuid5(uuid.NAMESPACE_DNS, host)),
                    availability_zone='',
                    hypervisor_hostname=host, service_name=host)

    def get_servers_per_host(self, host):
        return None


class _FloatingIPPool:
    """Every network exists with one subnet, NETWORK_CIDR."""

    def __init__(self, network_id, **kwargs):
        self.network_id = network_id

    def fetch_subnet(self, floatingip):
        from blazar.utils.openstack import exceptions
        import netaddr
        fip = netaddr.IPAddress(floatingip)
        cidr = netaddr.IPNetwork(NETWORK_CIDR)
        if fip not in cidr:
            raise exceptions.FloatingIPSubnetNotFound(fip=floatingip)
        owned = netaddr.IPSet(netaddr.IPRange(cidr[1], cidr[99]))
        if fip in owned:
            raise exceptions.NeutronUsesFloatingIP(floatingip=fip,
                                                   subnet='subnet-1')
        return {'id': 'subnet-1', 'cidr': NETWORK_CIDR}

    def create_reserved_floatingip(self, *args, **kwargs):
        pass

    def delete_reserved_floatingip(self, *args, **kwargs):
        pass


def install_stand_ins():
    """Replace upstream's Keystone, Nova, Placement and Neutron calls;
    returns the manager."""
    from blazar import context
    from blazar.manager import service as manager_service
    from blazar.notification import notifier
    from blazar.utils.openstack import neutron
    from blazar.utils.openstack import nova
    from blazar.utils.openstack import placement
    from blazar.utils import service as service_utils
    from blazar.utils import trusts
    from keystonemiddleware import auth_token
    from oslo_serialization import jsonutils

    trusts.create_trust = _Trust
    trusts.create_ctx_from_trust = lambda trust_id: context.current()
    nova.ReservationPool = _ReservationPool
    nova.NovaInventory = _NovaInventory
    nova.NovaClientWrapper.nova = property(lambda self: _Nova())
    placement.BlazarPlacementClient = _Placement
    neutron.FloatingIPPool = _FloatingIPPool
    auth_token.filter_factory = lambda conf, **kw: (lambda app: app)
    notifier.init()  # the noop driver: notifications go nowhere
    manager = manager_service.ManagerService()

    def call(self, name, **kwargs):
        # As over RPC: the result crosses as JSON.
        return jsonutils.loads(jsonutils.dumps(
            getattr(manager, name)(**kwargs)))

    def cast(self, name, **kwargs):
        getattr(manager, name)(**kwargs)

    service_utils.RPCClient.call = call
    service_utils.RPCClient.cast = cast
    service_utils.RPCClient.__init__ = lambda self, target: None
    return manager


def make_app():
    from blazar.api.v1 import app as v1_app
    return v1_app.make_app()


# --- Serving -----------------------------------------------------------------

class _ThreadingServer(socketserver.ThreadingMixIn,
                       simple_server.WSGIServer):
    daemon_threads = True
    request_queue_size = 128


class _QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


def _serialized(app, lock: threading.Lock):
    """``app`` answering one request at a time."""
    def serialized(environ, start_response):
        with lock:
            return list(app(environ, start_response))
    return serialized


def run_events(manager, interval: float, lock: threading.Lock) -> None:
    """The manager's event loop, as blazar-manager runs it."""
    while True:
        time.sleep(interval)
        try:
            with lock:
                manager._process_events()
        except Exception as exc:  # keep looping, as upstream's timer does
            print('events: %r' % exc, file=sys.stderr, flush=True)


def serve(database: str, port: int = 0, plugins: str = HOST_PLUGIN,
          events: float = 0, create_schema: bool = False) -> None:
    """Upstream's v1 app in one threaded process, as its blazar-api runs
    one process by default; prints ``serving PORT`` once it listens."""
    config_file = configure(database, plugins)
    if create_schema:
        migrate(config_file, database)
    manager = install_stand_ins()
    app = make_app()
    if database in ('sqlite://', 'sqlite:///:memory:'):
        # One connection: one request or event batch at a time.
        lock = threading.Lock()
        app = _serialized(app, lock)
    else:
        lock = contextlib.nullcontext()
    if events:
        threading.Thread(target=run_events, args=(manager, events, lock),
                         daemon=True).start()
    server = simple_server.make_server(
        '127.0.0.1', port, app, server_class=_ThreadingServer,
        handler_class=_QuietHandler)
    print('serving %d' % server.server_address[1], flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--database', required=True)
    parser.add_argument('--port', type=int, default=0)
    parser.add_argument('--plugins', default=HOST_PLUGIN)
    parser.add_argument('--events', type=float, default=0,
                        help='run the event loop every this many seconds')
    parser.add_argument('--create-schema', action='store_true',
                        help="build upstream's schema first")
    args = parser.parse_args()
    serve(args.database, args.port, args.plugins, args.events,
          args.create_schema)
    return 0


if __name__ == '__main__':
    sys.exit(main())
