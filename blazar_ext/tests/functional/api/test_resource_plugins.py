"""Resource types as plugins: loading by entry point, [manager] plugins,
and a third-party type (tests/functional/widget) through the whole
service."""

import os
import sys

import fixtures

from blazar_ext import exceptions
from blazar_ext.plugins import loader
from blazar_ext.tests import base
from blazar_ext.tests.functional.widget import plugin as widget

ALL = ['physical.host.plugin', 'virtual.floatingip.plugin']
DIST = os.path.join(os.path.dirname(widget.__file__), 'dist')


def widget_reservation(**values) -> dict:
    return dict({'resource_type': 'test:widget', 'amount': 1}, **values)


class WidgetInstalled(fixtures.Fixture):
    """The test:widget distribution on sys.path (so its entry point is
    found, as a pip-installed plugin's would be) and its tables created."""

    def __init__(self, engine):
        self.engine = engine

    def _setUp(self):
        self.useFixture(fixtures.MonkeyPatch('sys.path', [DIST] + sys.path))
        # stevedore remembers a namespace's entry points per process.
        self.useFixture(fixtures.MonkeyPatch(
            'stevedore.extension.ExtensionManager.ENTRY_POINT_CACHE', {}))
        widget.Base.metadata.create_all(self.engine)
        self.addCleanup(widget.Base.metadata.drop_all, self.engine)
        del widget.CALLS[:]


class TestThirdPartyPlugin(base.LeaseTestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(WidgetInstalled(self.db.engine))
        self.conf.set_override('plugins', ALL + ['test.widget.plugin'],
                               group='manager')

    def test_lease_lifecycle(self):
        lease = self.create(reservations=[
            widget_reservation(amount=2, colour='red')])
        reservation = lease['reservations'][0]
        self.assertEqual('test:widget', reservation['resource_type'])
        self.assertEqual(2, reservation['amount'])
        self.assertEqual('red', reservation['colour'])
        self.assertIn(('allocate', 'RED'), widget.CALLS)

        # Two of three widgets are held: a second lease for two is a 409
        # naming the shortage, and leaves nothing behind.
        resp = self.request('POST', '/v1/leases', {
            'name': 'second', 'start_date': base.lease_date(90),
            'end_date': base.lease_date(150),
            'reservations': [widget_reservation(amount=2)]})
        self.assertEqual(409, resp.status, resp.text)
        self.assertIn('needs 2 widget(s); 1 free', resp.text)
        names = [le['name'] for le in
                 self.request('GET', '/v1/leases').json()['leases']]
        self.assertEqual(['lease-1'], names)

        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'reservations': [{'id': reservation['id'], 'amount': 3}]})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(3, resp.json()['lease']['reservations'][0]['amount'])

        self.run_events(minutes=61)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        self.assertIn(('on_start', reservation['id']), widget.CALLS)

        resp = self.request('DELETE', '/v1/leases/%s' % lease['id'])
        self.assertEqual(204, resp.status, resp.text)
        self.assertIn(('on_end', reservation['id']), widget.CALLS)
        with self.db.engine.connect() as conn:
            for table in widget.Base.metadata.sorted_tables:
                self.assertEqual([], conn.execute(table.select()).all(),
                                 table.name)

    def test_mixed_with_a_builtin_type(self):
        self.add_host('h1')
        lease = self.create(reservations=[base.host_reservation(),
                                          widget_reservation()])
        self.assertEqual(['physical:host', 'test:widget'],
                         [r['resource_type'] for r in lease['reservations']])
        self.assertEqual([1, 1], [lease['reservations'][0]['min'],
                                  lease['reservations'][1]['amount']])


class TestEnabledPlugins(base.LeaseTestCase):

    def test_disabled_type_is_refused_and_unrouted(self):
        self.conf.set_override('plugins', ['virtual.floatingip.plugin'],
                               group='manager')
        self.assertEqual(404, self.request('GET', '/v1/os-hosts').status)
        self.assertEqual(200, self.request('GET', '/v1/floatingips').status)
        resp = self.request('POST', '/v1/leases', {
            'name': 'l', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120),
            'reservations': [base.host_reservation()]})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn("resource_type 'physical:host' is not enabled; "
                      "enabled: virtual:floatingip", resp.text)

    def test_default_enables_the_builtin_types(self):
        self.assertEqual({'physical:host', 'virtual:instance',
                          'virtual:floatingip', 'flavor:instance'},
                         set(loader.get().by_type))
        self.assertEqual(200, self.request('GET', '/v1/os-hosts').status)

    def test_unknown_name_stops_loading(self):
        self.conf.set_override('plugins', ['no.such.plugin'],
                               group='manager')
        exc = self.assertRaises(exceptions.ConfigurationError, loader.get)
        self.assertIn('no.such.plugin', str(exc))


class TestResourceCall(base.LeaseTestCase):
    """The manager's generic resource call (RPC 1.3) answers what the
    type's plugin declares, and nothing else."""

    def call(self, resource_type, operation, payload):
        from blazar_ext import context
        from blazar_ext.rpc import manager_client
        return manager_client.get_client().resource_call(
            context.get_admin_context(), resource_type, operation, payload)

    def test_an_operation_the_type_lacks_is_invalid(self):
        exc = self.assertRaises(exceptions.Invalid, self.call,
                                'virtual:floatingip', 'update',
                                {'id': 'x', 'values': {}})
        self.assertIn("virtual:floatingip resources have no 'update' "
                      "operation; they have: create, delete", str(exc))

    def test_an_unknown_operation_is_invalid(self):
        exc = self.assertRaises(exceptions.Invalid, self.call,
                                'physical:host', '__init__', {})
        self.assertIn("no '__init__' operation", str(exc))

    def test_a_payload_without_the_id_is_invalid(self):
        exc = self.assertRaises(exceptions.Invalid, self.call,
                                'physical:host', 'delete', {})
        self.assertIn("payload must be an object with the resource's id",
                      str(exc))

    def test_a_disabled_type_is_invalid(self):
        self.conf.set_override('plugins', ['virtual.floatingip.plugin'],
                               group='manager')
        exc = self.assertRaises(exceptions.Invalid, self.call,
                                'physical:host', 'create',
                                {'values': {'name': 'h1'}})
        self.assertIn("resource_type 'physical:host' is not enabled",
                      str(exc))

    def test_update_takes_out_of_service_through_the_plugin(self):
        host = self.add_host('h1')
        updated = self.call('physical:host', 'update', {
            'id': host['id'], 'values': {'reservable': False,
                                         'reservable_reason': 'broken'}})
        self.assertFalse(updated['reservable'])
        self.assertEqual('broken', updated['reservable_reason'])
