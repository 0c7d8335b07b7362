"""Faults and contention that CI time allows; tools/chaos/ has the long
versions (hundreds of requests, killed managers, failing services).
"""

import datetime
import socket
import threading
from unittest import mock

import kombu.exceptions
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import provision
from oslo_db.sqlalchemy import test_fixtures
from oslotest import base

from blazar_ext import context as blazar_context
from blazar_ext.db.api import lease as lease_api
from blazar_ext.db import models  # noqa: F401 (registers every table)
from blazar_ext.db.models import base as models_base
from blazar_ext.db import session as db_session
from blazar_ext.enforcement.filters import external_service
from blazar_ext import exceptions
from blazar_ext import rpc
from blazar_ext.rpc import manager_client
from blazar_ext.tests import base as blazar_base
from blazar_ext.tests.functional.enforcement import fixtures as efixtures
from blazar_ext.tests.functional.enforcement import test_external_service


class _PostgreSQLFixture(test_fixtures.OpportunisticDbFixture):
    """A PostgreSQL database for the service's own enginefacade."""

    DRIVER = 'postgresql'

    def get_enginefacade(self):
        return db_session.context_manager


class TestLeaseReadIsOneSnapshot(test_fixtures.OpportunisticDBTestMixin,
                                 base.BaseTestCase):
    """A lease deleted while it is being read is read whole or not at all.

    Under READ COMMITTED each query sees what committed before it: the
    lease row, then no reservations. An update racing a delete then failed
    validation with a 400 instead of a 404 (tools/chaos/ha_leases.py).
    """

    FIXTURE = _PostgreSQLFixture

    def setUp(self):
        super().setUp()
        engine = db_session.get_engine()
        backend = provision.Backend(engine.name, engine.url)
        self.addCleanup(backend.drop_all_objects, engine)
        models_base.BASE.metadata.create_all(engine)

    def test_delete_between_the_queries_of_a_read(self):
        context = blazar_context.get_admin_context()
        start = datetime.datetime(2030, 1, 1, 0, 0)
        lease = lease_api.lease_create(
            context,
            {'id': 'lease-1', 'name': 'l1', 'start_date': start,
             'end_date': start + datetime.timedelta(hours=1),
             'status': 'PENDING'},
            [{'resource_type': 'physical:host', 'min': 1, 'max': 1}],
            [{'event_type': 'start_lease', 'time': start}],
            lambda *args: None)
        self.assertEqual(1, len(lease['reservations']))

        real = lease_api._to_dicts
        deleting = []

        def delete_then_read(session, leases):
            # The lease row is read; another transaction deletes it all
            # and commits before its reservations are read. (The delete
            # reads the lease through _to_dicts too.)
            if not deleting:
                deleting.append(True)
                lease_api.lease_delete(blazar_context.get_admin_context(),
                                       'lease-1')
            return real(session, leases)

        with mock.patch.object(lease_api, '_to_dicts', delete_then_read):
            seen = lease_api.lease_get(context, 'lease-1')
        self.assertEqual([lease['reservations'][0]['id']],
                         [r['id'] for r in seen['reservations']])
        self.assertEqual(1, seen['reservations'][0]['min'])
        self.assertEqual(['start_lease'],
                         [e['event_type'] for e in seen['events']])


class TestEnforcementServiceTrickling(
        test_external_service.ExternalServiceTestBase):
    """A service that answers a byte at a time, each byte well within
    [enforcement_external] timeout, the whole answer far beyond it, is a
    service that did not answer in time (tools/chaos/enforcement_faults.py
    measured 16 s and 55 s calls with a 2 s timeout)."""

    def setUp(self):
        super().setUp()
        self.stop = threading.Event()
        self.addCleanup(self.stop.set)
        self.sock = socket.socket()
        self.addCleanup(self.sock.close)
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(8)
        threading.Thread(target=self._serve, daemon=True).start()
        self.url = 'http://127.0.0.1:%d' % self.sock.getsockname()[1]

    def _serve(self):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.recv(65536)
            # An approval, eventually: 204 and a padding header.
            answer = (b'HTTP/1.1 204 No Content\r\nX-Pad: ' + b'a' * 40 +
                      b'\r\nContent-Length: 0\r\n\r\n')
            for byte in answer:
                if self.stop.wait(0.1):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return

    def test_trickle_is_no_answer(self):
        exc = self.assertRaises(
            exceptions.EnforcementRejected,
            self.chain(self.url, timeout=0.5).check_create,
            {'user_id': 'u1', 'project_id': 'p1'}, efixtures.make_lease())
        self.assertEqual(external_service.UNAVAILABLE_DENY, str(exc))


class TestBrokerGoneMidCall(blazar_base.TestCase):
    """A broker stopped under load (tools/chaos/rabbitmq_outage.py): once
    [api] rpc_retry is spent the rabbit driver raises kombu's
    OperationalError, which must reach the client as a 503, not a 500."""

    def test_kombu_error_is_service_unavailable(self):
        rpc.init(self.conf)
        self.addCleanup(rpc.cleanup)
        client = manager_client.ManagerClient()
        prepared = mock.Mock()
        prepared.call.side_effect = kombu.exceptions.OperationalError(
            '[Errno 111] Connection refused')
        with mock.patch.object(client._client, 'prepare',
                               return_value=prepared):
            exc = self.assertRaises(
                exceptions.ServiceUnavailable, client.create_lease,
                blazar_context.get_admin_context(), {'name': 'l1'})
        self.assertIn('OperationalError', str(exc))


class TestDatabaseDown(blazar_base.APITestCase):
    """The database stopped or crashed (tools/chaos/database_restart.py):
    reads in the API and writes in the manager fail with oslo.db's
    DBConnectionError, which must reach the client as a 503 with a JSON
    message (try again), not a 500."""

    def _down(self, *args, **kwargs):
        raise db_exc.DBConnectionError(
            Exception("(2003, \"Can't connect to MySQL server\")"))

    def test_read_is_503(self):
        with mock.patch.object(lease_api, 'lease_list', self._down):
            resp = self.request('GET', '/v1/leases')
        self.assertEqual(503, resp.status, resp.text)
        self.assertIn('try again', resp.json()['error_message'])

    def test_write_in_the_manager_is_503(self):
        with mock.patch.object(lease_api, 'lease_create', self._down):
            resp = self.request('POST', '/v1/leases', {
                'name': 'l1', 'start_date': '2030-01-01 00:00',
                'end_date': '2030-01-01 01:00', 'events': [],
                'reservations': [{'resource_type': 'physical:host',
                                  'min': 1, 'max': 1,
                                  'hypervisor_properties': '',
                                  'resource_properties': ''}]})
        self.assertEqual(503, resp.status, resp.text)
        self.assertIn('try again', resp.json()['error_message'])
