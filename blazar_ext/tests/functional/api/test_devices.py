"""physical:device through the whole service: /v1/devices, device leases
(create, update, delete), properties discovery, bad input, out of
service and healing, resource providers and traits, the calendar tab,
and concurrent creates for the last device; on SQLite, then on
MariaDB/MySQL and PostgreSQL. The openstack commands on SQLite."""

import datetime
import urllib.parse

from oslo_utils import timeutils
import sqlalchemy as sa

from blazar_ext.api import metrics as api_metrics
from blazar_ext import context as blazar_context
from blazar_ext.db.api import metrics as metrics_db
from blazar_ext.db.models import device as device_models
from blazar_ext.tests import base
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional import cli

PLUGINS = ['physical.host.plugin', 'virtual.floatingip.plugin',
           'physical.device.plugin']


def device_reservation(**values) -> dict:
    return dict({'resource_type': 'physical:device', 'min': 1, 'max': 1,
                 'resource_properties': ''}, **values)


class DeviceTestCase(base.LeaseTestCase):

    def setUp(self):
        super().setUp()
        self.conf.set_override('plugins', PLUGINS, group='manager')
        # New capabilities public, as the properties tests have them.
        self.conf.set_override('capability_default_visibility', 'public')

    def add_device(self, name: str, device_type: str = 'jetson',
                   **values) -> dict:
        resp = self.request('POST', '/v1/devices', dict(
            values, name=name, device_type=device_type))
        self.assertEqual(201, resp.status, resp.text)
        return resp.json()['device']

    def held(self, lease: dict) -> list:
        with self.db.engine.connect() as conn:
            return sorted(conn.scalars(
                sa.select(device_models.DeviceAllocation.device_id).where(
                    device_models.DeviceAllocation.reservation_id.in_(
                        [r['id'] for r in lease['reservations']]))))


class TestDevices(DeviceTestCase):

    def test_register_show_list_update_delete(self):
        device = self.add_device('edge-1', vendor='nvidia', model='orin',
                                 gpu_mem_gb=32, arch='arm64')
        self.assertEqual('edge-1', device['name'])
        self.assertEqual('jetson', device['device_type'])
        self.assertEqual('orin', device['model'])
        # Capabilities are top-level keys, as for hosts.
        self.assertEqual('32', device['gpu_mem_gb'])
        self.assertTrue(device['reservable'])
        resp = self.request('GET', '/v1/devices/%s' % device['id'])
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual('arm64', resp.json()['device']['arch'])
        resp = self.request('PUT', '/v1/devices/%s' % device['id'],
                            {'arch': None, 'rack': 'r2'})
        self.assertEqual(200, resp.status, resp.text)
        self.assertNotIn('arch', resp.json()['device'])
        self.assertEqual('r2', resp.json()['device']['rack'])
        names = [d['name'] for d in
                 self.request('GET', '/v1/devices').json()['devices']]
        self.assertEqual(['edge-1'], names)
        self.assertEqual(204, self.request(
            'DELETE', '/v1/devices/%s' % device['id']).status)
        self.assertEqual(404, self.request(
            'GET', '/v1/devices/%s' % device['id']).status)

    def test_bad_input_is_400(self):
        for body in ({}, {'name': 'x'}, {'device_type': 'x'},
                     {'name': '', 'device_type': 'x'},
                     {'name': 'x', 'device_type': 'y', 'id': 'z'},
                     {'name': 'x', 'device_type': 'y', 'cap': {'a': 1}},
                     {'name': 'x', 'device_type': 'y', 'cap': 'inf'},
                     [1]):
            resp = self.request('POST', '/v1/devices', body)
            self.assertEqual(400, resp.status, (body, resp.text))
            self.assertIn('error_message', resp.json())
        self.assertEqual([], self.request('GET', '/v1/devices').json()[
            'devices'])
        device = self.add_device('edge-1')
        for body in ({}, {'name': 'y'}, {'reservable_reason': 'why'},
                     {'reservable': 'maybe'}):
            resp = self.request('PUT', '/v1/devices/%s' % device['id'],
                                body)
            self.assertEqual(400, resp.status, (body, resp.text))
        # A taken name is a conflict.
        resp = self.request('POST', '/v1/devices',
                            {'name': 'edge-1', 'device_type': 'x'})
        self.assertEqual(409, resp.status, resp.text)
        self.assertEqual(404, self.request(
            'PUT', '/v1/devices/nope', {'rack': 'r1'}).status)
        self.assertEqual(404, self.request(
            'DELETE', '/v1/devices/nope').status)

    def test_bad_reservations_are_400(self):
        self.add_device('edge-1')
        for reservation in (
                device_reservation(min=0),
                device_reservation(min=2, max=1),
                device_reservation(max='lots'),
                device_reservation(resource_properties='["==", "$x"'),
                device_reservation(resource_properties='["~~", "$a", "1"]'),
                device_reservation(resource_properties=42)):
            resp = self.request('POST', '/v1/leases', {
                'name': 'l', 'start_date': base.lease_date(60),
                'end_date': base.lease_date(120),
                'reservations': [reservation]})
            self.assertEqual(400, resp.status, (reservation, resp.text))
        self.assertEqual([], self.request('GET', '/v1/leases').json()[
            'leases'])

    def test_lease_create_update_delete(self):
        a = self.add_device('edge-1', gpu_mem_gb=16)
        b = self.add_device('edge-2', gpu_mem_gb=32)
        c = self.add_device('edge-3', device_type='fpga', gpu_mem_gb=64)
        lease = self.create(reservations=[device_reservation(
            min=1, max=2, resource_properties=(
                '["and", [">=", "$gpu_mem_gb", "20"], '
                '["==", "$device_type", "jetson"]]'))])
        reservation = lease['reservations'][0]
        self.assertEqual('physical:device', reservation['resource_type'])
        self.assertEqual(2, reservation['max'])
        self.assertEqual([b['id']], self.held(lease))
        # Numbers compare as numbers: "64" >= "20".
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'reservations': [{'id': reservation['id'], 'min': 2,
                              'resource_properties':
                                  '[">=", "$gpu_mem_gb", "20"]'}]})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(sorted([b['id'], c['id']]), self.held(lease))
        # Asking for more than there is: 409, nothing changed.
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'reservations': [{'id': reservation['id'], 'min': 3, 'max': 3}]})
        self.assertEqual(409, resp.status, resp.text)
        self.assertEqual(sorted([b['id'], c['id']]), self.held(lease))
        # A new window moves the allocations with it.
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'end_date': base.lease_date(180)})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(sorted([b['id'], c['id']]), self.held(lease))
        # A device held is not deleted.
        self.assertEqual(409, self.request(
            'DELETE', '/v1/devices/%s' % b['id']).status)
        self.assertEqual(204, self.request(
            'DELETE', '/v1/leases/%s' % lease['id']).status)
        self.assertEqual([], self.held(lease))
        self.assertEqual(204, self.request(
            'DELETE', '/v1/devices/%s' % a['id']).status)

    def test_device_lease_runs_through_its_events(self):
        self.add_device('edge-1')
        lease = self.create(start=1, end=120,
                            reservations=[device_reservation()])
        self.run_events(minutes=2)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])

    def test_two_leases_share_no_device(self):
        self.add_device('edge-1')
        self.create(reservations=[device_reservation()])
        resp = self.request('POST', '/v1/leases', {
            'name': 'second', 'start_date': base.lease_date(90),
            'end_date': base.lease_date(150),
            'reservations': [device_reservation()]})
        self.assertEqual(409, resp.status, resp.text)
        self.assertIn('needs at least 1 device(s)', resp.text)
        # Another window is free.
        self.create(name='later', start=200, end=260,
                    reservations=[device_reservation()])

    def test_properties_discovery_and_private(self):
        self.add_device('edge-1', gpu_mem_gb=16, secret='s1')
        self.add_device('edge-2', gpu_mem_gb=32)
        resp = self.request('GET', '/v1/devices/properties?detail=true')
        self.assertEqual(200, resp.status, resp.text)
        props = {p['property']: p for p in
                 resp.json()['resource_properties']}
        self.assertEqual(['16', '32'], props['gpu_mem_gb']['values'])
        resp = self.request('GET', '/v1/physical:device/properties')
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual({'gpu_mem_gb', 'secret'},
                         {p['property'] for p in resp.json()})
        # Private: left out of listings unless all are asked for.
        resp = self.request('PATCH', '/v1/devices/properties/secret',
                            {'private': True})
        self.assertEqual(200, resp.status, resp.text)
        self.assertTrue(resp.json()['resource_property']['private'])
        resp = self.request('GET', '/v1/physical:device/properties')
        self.assertEqual(['gpu_mem_gb'], [p['property'] for p in resp.json()])
        resp = self.request('GET', '/v1/physical:device/properties?all=true')
        self.assertEqual(['gpu_mem_gb', 'secret'],
                         sorted(p['property'] for p in resp.json()))
        # A user may not list devices, so sees no private value either.
        user = {'X-Roles': 'member', 'X-Project-Id': 'p2',
                'X-User-Id': 'u2'}
        self.assertEqual(403, self.request('GET', '/v1/devices',
                                           headers=user).status)
        device = self.request('GET', '/v1/devices').json()['devices'][0]
        self.assertEqual('s1', device['secret'])  # the admin sees it
        # Host properties are not device properties.
        self.add_host('h1', rack='r1')
        names = {p['property'] for p in self.request(
            'GET', '/v1/devices/properties').json()['resource_properties']}
        self.assertNotIn('rack', names)

    def test_a_user_naming_a_private_property_gets_what_an_unknown_gets(self):
        self.add_device('edge-1', secret='s1')
        self.request('PATCH', '/v1/devices/properties/secret',
                     {'private': True})
        user = {'X-Roles': 'member', 'X-Project-Id': 'p2',
                'X-User-Id': 'u2'}
        answers = []
        for name in ('secret', 'nothing'):
            resp = self.request('POST', '/v1/leases', {
                'name': 'l', 'start_date': base.lease_date(60),
                'end_date': base.lease_date(120),
                'reservations': [device_reservation(
                    resource_properties='["==", "$%s", "s1"]' % name)]},
                headers=user)
            answers.append((resp.status,
                            resp.json()['error_message'].replace(
                                name, 'NAME')))
        self.assertEqual(400, answers[0][0])
        self.assertEqual(answers[0], answers[1])

    def test_out_of_service_heals_to_a_free_device(self):
        a = self.add_device('edge-1', arch='arm64')
        b = self.add_device('edge-2', arch='arm64')
        self.add_device('edge-3', arch='x86')
        lease = self.create(reservations=[device_reservation(
            resource_properties='["==", "$arch", "arm64"]')])
        self.assertEqual([a['id']], self.held(lease))
        resp = self.request('PUT', '/v1/devices/%s' % a['id'], {
            'reservable': False, 'reservable_reason': 'fan failure'})
        self.assertEqual(200, resp.status, resp.text)
        self.assertFalse(resp.json()['device']['reservable'])
        self.assertEqual('fan failure',
                         resp.json()['device']['reservable_reason'])
        self.assertEqual([b['id']], self.held(lease))
        self.assertFalse(self.show(lease['id'])['degraded'])
        # No arm64 device left: flagged, then healed when one is back.
        resp = self.request('PUT', '/v1/devices/%s' % b['id'],
                            {'reservable': 'false'})
        self.assertEqual(200, resp.status, resp.text)
        shown = self.show(lease['id'])
        self.assertTrue(shown['degraded'])
        self.assertTrue(shown['reservations'][0]['missing_resources'])
        self.assertEqual([b['id']], self.held(lease))
        resp = self.request('PUT', '/v1/devices/%s' % a['id'],
                            {'reservable': True})
        self.assertEqual(200, resp.status, resp.text)
        self.assertTrue(resp.json()['device']['reservable'])
        self.assertIsNone(resp.json()['device']['reservable_reason'])
        self.assertEqual([a['id']], self.held(lease))
        self.assertFalse(self.show(lease['id'])['degraded'])
        # Out of service: not picked by a new lease.
        self.request('PUT', '/v1/devices/%s' % a['id'],
                     {'reservable': False})
        resp = self.request('POST', '/v1/leases', {
            'name': 'other', 'start_date': base.lease_date(300),
            'end_date': base.lease_date(360),
            'reservations': [device_reservation(
                resource_properties='["==", "$arch", "arm64"]')]})
        self.assertEqual(409, resp.status, resp.text)

    def test_allocations(self):
        a = self.add_device('edge-1')
        b = self.add_device('edge-2')
        lease = self.create(reservations=[device_reservation()])
        resp = self.request('GET', '/v1/devices/allocations')
        self.assertEqual(200, resp.status, resp.text)
        found = {x['resource_id']: x['reservations']
                 for x in resp.json()['allocations']}
        self.assertEqual([lease['id']],
                         [r['lease_id'] for r in found[a['id']]])
        self.assertEqual([], found[b['id']])

    def test_calendar(self):
        a = self.add_device('edge-1')
        self.add_device('edge-2')
        lease = self.create(reservations=[device_reservation()])
        query = urllib.parse.urlencode({
            'start': base.lease_date(0), 'end': base.lease_date(24 * 60)})
        resp = self.request('GET', '/v1/devices/calendar?' + query)
        self.assertEqual(200, resp.status, resp.text)
        body = resp.json()['calendar']
        self.assertEqual(2, body['resource_count'])
        self.assertEqual(['edge-1', 'edge-2'],
                         [r['name'] for r in body['resources']])
        allocations = [dict(zip(body['allocation_fields'], row))
                       for row in body['allocations']]
        self.assertEqual([(a['id'], lease['id'])],
                         [(x['resource_id'], x['lease_id'])
                          for x in allocations])
        resp = self.request('GET', '/v1/devices/calendar?start=x&end=y')
        self.assertEqual(400, resp.status, resp.text)

    def test_calendar_tab(self):
        # The calendar page's Devices tab, after the hosts' and floating
        # IPs' as [manager] plugins orders them; its route answers.
        resp = self.request('GET', '/calendar/tabs.json', token=None)
        tabs = resp.json()['tabs']
        self.assertEqual(['hosts', 'floatingips', 'devices'],
                         [tab['key'] for tab in tabs])
        self.assertEqual({'key': 'devices', 'label': 'Devices',
                          'column': 'Device', 'noun': 'devices',
                          'path': '/v1/devices/calendar',
                          'resource_type': 'physical:device'}, tabs[2])

    def test_disabled_type_is_unrouted_and_refused(self):
        self.conf.set_override('plugins', ['physical.host.plugin'],
                               group='manager')
        self.assertEqual(404, self.request('GET', '/v1/devices').status)
        resp = self.request('POST', '/v1/leases', {
            'name': 'l', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120),
            'reservations': [device_reservation()]})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn("'physical:device' is not enabled", resp.text)

    def test_state_gauges_count_devices(self):
        a = self.add_device('edge-1')
        self.add_device('edge-2')
        self.request('PUT', '/v1/devices/%s' % a['id'], {'reservable': False})
        self.create(start=1, end=120, reservations=[device_reservation()])
        state = metrics_db.state(
            blazar_context.get_admin_context(),
            now=timeutils.utcnow() + datetime.timedelta(minutes=2),
            sources=api_metrics._own_resources())
        self.assertEqual(1, state['reservable']['physical:device'])
        self.assertEqual(1, state['reserved']['physical:device'])
        self.assertEqual(0, state['reserved']['physical:host'])

    def test_policies_are_registered(self):
        resp = self.request('GET', '/v1/devices', headers={
            'X-Roles': 'member', 'X-Project-Id': 'p2', 'X-User-Id': 'u2'})
        self.assertEqual(403, resp.status, resp.text)
        self.assertIn('blazar:devices:get', resp.text)


class TestDeviceProviders(DeviceTestCase):
    """A device backed by a resource provider: its traits shown, and
    required or forbidden in device reservations."""

    def placement(self, method: str, path: str, body=None) -> dict:
        resp = self.request(method, '/placement' + path, body,
                            headers=base.PLACEMENT_LATEST)
        self.assertIn(resp.status, (200, 201, 204), resp.text)
        return resp.json() if resp.text else {}

    def set_traits(self, uuid: str, *traits: str) -> None:
        for trait in traits:
            self.placement('PUT', '/traits/%s' % trait)
        generation = self.placement(
            'GET', '/resource_providers/%s' % uuid)['generation']
        self.placement('PUT', '/resource_providers/%s/traits' % uuid,
                       {'traits': list(traits),
                        'resource_provider_generation': generation})

    def reserve(self, traits, expected: int = 201, **values) -> dict:
        resp = self.request('POST', '/v1/leases', {
            'name': 'l', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120),
            'reservations': [device_reservation(traits=traits, **values)]})
        self.assertEqual(expected, resp.status, resp.text)
        return resp.json().get('lease') or resp.json()

    def test_provider_created_adopted_or_named(self):
        plain = self.add_device('edge-0')
        self.assertIsNone(plain['resource_provider_uuid'])
        self.assertEqual([], plain['traits'])
        made = self.add_device('edge-1', resource_provider=True)
        found = self.placement('GET', '/resource_providers?name=edge-1')[
            'resource_providers']
        self.assertEqual([made['resource_provider_uuid']],
                         [p['uuid'] for p in found])
        # A provider made beforehand (a compute service's accelerator,
        # say) is named by uuid, or adopted by name.
        fpga = self.placement('POST', '/resource_providers',
                              {'name': 'cyborg-fpga-7'})['uuid']
        named = self.add_device('fpga-7', resource_provider=fpga)
        self.assertEqual(fpga, named['resource_provider_uuid'])
        same = self.placement('POST', '/resource_providers',
                              {'name': 'edge-2'})['uuid']
        self.assertEqual(same, self.add_device(
            'edge-2', resource_provider=True)['resource_provider_uuid'])
        # Traits set in Placement show in the device view.
        self.set_traits(fpga, 'CUSTOM_FPGA', 'CUSTOM_XILINX')
        shown = self.request('GET', '/v1/devices/%s' % named['id']).json()[
            'device']
        self.assertEqual(['CUSTOM_FPGA', 'CUSTOM_XILINX'], shown['traits'])
        listed = {d['name']: d['traits'] for d in
                  self.request('GET', '/v1/devices').json()['devices']}
        self.assertEqual({'edge-0': [], 'edge-1': [], 'edge-2': [],
                          'fpga-7': ['CUSTOM_FPGA', 'CUSTOM_XILINX']},
                         listed)

    def test_provider_deleted_in_placement_unlinks_the_device(self):
        device = self.add_device('edge-1', resource_provider=True)
        self.placement('DELETE', '/resource_providers/%s'
                       % device['resource_provider_uuid'])
        shown = self.request('GET', '/v1/devices/%s' % device['id']).json()[
            'device']
        self.assertEqual((None, []), (shown['resource_provider_uuid'],
                                      shown['traits']))
        self.reserve('!CUSTOM_FPGA', expected=400)  # no such trait yet
        self.placement('PUT', '/traits/CUSTOM_FPGA')
        self.assertEqual([device['id']],
                         self.held(self.reserve('!CUSTOM_FPGA')))

    def test_bad_providers(self):
        host = self.request('POST', '/v1/os-hosts', {'name': 'node-1'})
        self.assertEqual(201, host.status, host.text)
        self.add_device('edge-1', resource_provider=True)
        uuid = self.placement('GET', '/resource_providers?name=edge-1')[
            'resource_providers'][0]['uuid']
        for values, status, message in (
                ({'resource_provider': 'not-a-uuid'}, 400, 'not-a-uuid'),
                ({'resource_provider': 7}, 400, 'resource_provider'),
                ({'resource_provider': '8f3c1a52-0d7e-4c36-9d51-'
                                       '1f2a3b4c5d6e'}, 400,
                 'no resource provider'),
                ({'resource_provider': uuid}, 409, 'backs a device'),
                ({'name': 'node-1', 'resource_provider': True}, 409,
                 'backs a host'),
                ({'name': 'x' * 201, 'resource_provider': True}, 400,
                 'at most 200')):
            body = dict({'name': 'edge-9', 'device_type': 'jetson'}, **values)
            resp = self.request('POST', '/v1/devices', body)
            self.assertEqual(status, resp.status, (values, resp.text))
            self.assertIn(message, resp.json()['error_message'])
        names = [d['name'] for d in
                 self.request('GET', '/v1/devices').json()['devices']]
        self.assertEqual(['edge-1'], names)
        # Given at registration only.
        device = self.request('GET', '/v1/devices').json()['devices'][0]
        resp = self.request('PUT', '/v1/devices/%s' % device['id'],
                            {'resource_provider': True})
        self.assertEqual(400, resp.status, resp.text)

    def test_required_and_forbidden_traits(self):
        fpga = self.add_device('edge-1', resource_provider=True)
        gpu = self.add_device('edge-2', resource_provider=True)
        bare = self.add_device('edge-3')
        self.set_traits(fpga['resource_provider_uuid'], 'CUSTOM_FPGA')
        self.set_traits(gpu['resource_provider_uuid'], 'CUSTOM_GPU')
        lease = self.reserve('CUSTOM_FPGA')
        self.assertEqual([fpga['id']], self.held(lease))
        self.assertEqual('CUSTOM_FPGA', lease['reservations'][0]['traits'])
        # Forbidden: a device without a provider has no traits.
        lease = self.reserve('!CUSTOM_FPGA', min=2, max=2)
        self.assertEqual(sorted([gpu['id'], bare['id']]), self.held(lease))
        # Every listed requirement holds; nothing left with CUSTOM_GPU.
        self.reserve(['CUSTOM_GPU', '!CUSTOM_FPGA'], expected=409)
        lease = self.reserve(['in:CUSTOM_GPU,CUSTOM_FPGA'], expected=409)
        self.assertIn('needs at least 1 device(s)', lease['error_message'])

    def test_bad_traits_are_400(self):
        self.add_device('edge-1', resource_provider=True)
        for traits, message in (('CUSTOM_NOPE', 'CUSTOM_NOPE'),
                                ('!', 'traits'), (42, 'traits'),
                                ([1], 'traits')):
            resp = self.reserve(traits, expected=400)
            self.assertIn(message, resp['error_message'])

    def test_update_and_healing_keep_the_traits(self):
        a = self.add_device('edge-1', resource_provider=True)
        b = self.add_device('edge-2', resource_provider=True)
        c = self.add_device('edge-3', resource_provider=True)
        for device in (a, b):
            self.set_traits(device['resource_provider_uuid'], 'CUSTOM_FPGA')
        lease = self.reserve('CUSTOM_FPGA')
        self.assertEqual([a['id']], self.held(lease))
        # Out of service: healed to the other device with the trait.
        self.request('PUT', '/v1/devices/%s' % a['id'],
                     {'reservable': False})
        self.assertEqual([b['id']], self.held(lease))
        # An update to a forbidden trait moves to the one without.
        reservation = lease['reservations'][0]
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'reservations': [{'id': reservation['id'],
                              'traits': '!CUSTOM_FPGA'}]})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([c['id']], self.held(lease))
        self.assertEqual('!CUSTOM_FPGA',
                         self.show(lease['id'])['reservations'][0]['traits'])


class _ConcurrentCreates:
    """Two creates for the last device: one wins, the other is a 409."""

    def test_two_creates_for_the_last_device(self):
        if getattr(self, 'BACKEND', ''):
            # Only the database's row locks and the locked re-check keep
            # the device single-booked, as between two manager processes
            # (SQLite has no row locks: the process lock does it there).
            self.without_process_lock()
        self.add_device('edge-1')
        start, end = base.lease_date(60), base.lease_date(120)
        outcomes = self.race_creates(
            [{'name': 'c%d' % i, 'start_date': start, 'end_date': end,
              'reservations': [device_reservation()]} for i in range(2)],
            lambda: blazar_context.RequestContext(
                is_admin=True, roles=['admin'], project_id='p',
                user_id='u'))
        self.assertEqual(['NotEnoughResources', 'created'], outcomes)
        with self.db.engine.connect() as conn:
            self.assertEqual(1, conn.scalar(
                sa.select(sa.func.count()).select_from(
                    device_models.DeviceAllocation)))


class TestDeviceConcurrency(_ConcurrentCreates, DeviceTestCase):
    pass


class TestDeviceCommands(cli.ReservationCommands, DeviceTestCase):
    """``openstack reservation device ...`` (blazar_ext.cli.device) run as
    the real ``openstack`` executable against a real HTTP server."""

    def setUp(self):
        super().setUp()
        self.start_server()

    def test_create_show_list_set_delete(self):
        created = self.json('device', 'create', 'edge-1', '--device-type',
                            'jetson', '--vendor', 'nvidia', '--extra',
                            'gpu_mem_gb=32', '--extra', 'arch=arm64')
        self.assertEqual(('edge-1', 'jetson', 'nvidia', '32', 'arm64'), (
            created['name'], created['device_type'], created['vendor'],
            created['gpu_mem_gb'], created['arch']))
        # By its id or its name.
        self.assertEqual(created, self.json('device', 'show', created['id']))
        self.assertEqual(created, self.json('device', 'show', 'edge-1'))
        self.assertEqual([('edge-1', 'jetson', True)],
                         [(d['name'], d['device_type'], d['reservable'])
                          for d in self.json('device', 'list')])
        changed = self.json('device', 'set', 'edge-1', '--extra', 'rack=r2',
                            '--unset', 'arch', '--non-reservable',
                            '--reason', 'fan failure')
        self.assertEqual(('r2', False, 'fan failure'), (
            changed['rack'], changed['reservable'],
            changed['reservable_reason']))
        self.assertNotIn('arch', changed)
        self.assertTrue(self.json('device', 'set', 'edge-1',
                                  '--reservable')['reservable'])
        self.openstack('device', 'delete', 'edge-1')
        self.assertEqual([], self.json('device', 'list'))

    def test_resource_provider_and_traits(self):
        created = self.json('device', 'create', 'edge-1', '--device-type',
                            'fpga', '--create-resource-provider')
        uuid = created['resource_provider_uuid']
        self.assertIsNotNone(uuid)
        self.assertEqual([], created['traits'])
        # Named by uuid; one provider backs one device.
        proc = self.openstack('device', 'create', 'edge-2', '--device-type',
                              'fpga', '--resource-provider', uuid, ok=False)
        self.assertIn('already backs a device', proc.stderr)
        plain = self.json('device', 'create', 'edge-3', '--device-type',
                          'fpga')
        self.assertIsNone(plain['resource_provider_uuid'])

    def test_errors_reach_the_user(self):
        proc = self.openstack('device', 'create', 'edge-1', ok=False)
        self.assertIn('--device-type', proc.stderr)
        proc = self.openstack('device', 'create', 'edge-1', '--device-type',
                              'x', '--extra', 'novalue', ok=False)
        self.assertIn('invalid --extra', proc.stderr)
        proc = self.openstack('device', 'show', 'nope', ok=False)
        self.assertIn('nope', proc.stderr)
        self.json('device', 'create', 'edge-1', '--device-type', 'x')
        proc = self.openstack('device', 'set', 'edge-1', ok=False)
        self.assertIn('nothing to set', proc.stderr)
        proc = self.openstack('device', 'create', 'edge-1', '--device-type',
                              'x', ok=False)
        self.assertIn('already registered', proc.stderr)


TestDevicesMySQL, TestDevicesPostgreSQL = backends.on_each_backend(
    TestDevices)
TestDeviceProvidersMySQL, TestDeviceProvidersPostgreSQL = \
    backends.on_each_backend(TestDeviceProviders)
TestDeviceConcurrencyMySQL, TestDeviceConcurrencyPostgreSQL = \
    backends.on_each_backend(TestDeviceConcurrency)
