"""The spec's payloads built from the manager's plain lease dicts."""

import datetime

from oslo_config import cfg
from oslo_context import context

from blazar_ext.conf import enforcement as enforcement_conf
from blazar_ext.enforcement import keystone
from blazar_ext.enforcement import payload
from blazar_ext.tests.unit.enforcement import base


def _lease() -> dict:
    return {
        'id': 'lease-uuid', 'name': 'demo', 'user_id': 'u1',
        'project_id': 'p1', 'trust_id': 't', 'status': 'PENDING',
        'created_at': datetime.datetime(2030, 1, 1),
        'start_date': datetime.datetime(2030, 5, 13, 0, 0),
        'end_date': datetime.datetime(2030, 5, 14, 23, 59),
        'reservations': [
            {'id': 'r1', 'lease_id': 'lease-uuid',
             'resource_type': 'virtual:floatingip',
             'network_id': 'external-network-id', 'amount': 1,
             'status': 'pending', 'updated_at': None,
             'allocations': [{'floatingip': {
                 'id': '7375755f', 'floating_network_id': 'net',
                 'floating_ip_address': '192.168.1.100',
                 'created_at': datetime.datetime(2030, 1, 1)}}]},
            {'id': 'r2', 'resource_type': 'physical:host',
             'count_range': '1-2', 'hypervisor_properties': '[]',
             'resource_properties': '["==", "$az", "az1"]',
             'aggregate_id': 7,
             'allocations': [{
                 'id': 'alloc-1', 'compute_host_id': 1,
                 'host': {'id': 1, 'hypervisor_hostname': 'h1',
                          'vcpus': 8, 'updated_at': None},
                 'extra_capabilities': [
                     {'capability_name': 'availability_zone',
                      'capability_value': 'az1'}]}]},
        ],
    }


class LeasePayloadTest(base.TestCase):

    def test_spec_shape(self):
        doc = payload.lease_payload(_lease())
        self.assertEqual({
            'name': 'demo',
            'start_date': '2030-05-13 00:00',
            'end_date': '2030-05-14 23:59',
            'end_time': '2030-05-14 23:59',
            'reservations': [
                {'resource_type': 'virtual:floatingip',
                 'network_id': 'external-network-id', 'amount': 1,
                 'allocations': [{'id': '7375755f',
                                  'floating_network_id': 'net',
                                  'floating_ip_address': '192.168.1.100'}]},
                {'resource_type': 'physical:host', 'min': 1, 'max': 2,
                 'hypervisor_properties': '[]',
                 'resource_properties': '["==", "$az", "az1"]',
                 'allocations': [{'id': '1', 'hypervisor_hostname': 'h1',
                                  'vcpus': 8,
                                  'extra': {'availability_zone': 'az1'}}]},
            ]}, doc)

    def test_host_api_capability_shape(self):
        doc = payload.allocation_payload({
            'id': 3, 'hypervisor_hostname': 'h3', 'trust_id': 'secret',
            'capabilities': {'gpu': {'value': 'true', 'private': False}}})
        self.assertEqual({'id': '3', 'hypervisor_hostname': 'h3',
                          'extra': {'gpu': 'true'}}, doc)

    def test_seconds_kept_when_present(self):
        lease = _lease()
        lease['end_date'] = datetime.datetime(2030, 5, 14, 23, 59, 30)
        self.assertEqual('2030-05-14 23:59:30',
                         payload.lease_payload(lease)['end_time'])

    def test_aware_dates_become_utc(self):
        tz = datetime.timezone(datetime.timedelta(hours=2))
        lease = _lease()
        lease['start_date'] = datetime.datetime(2030, 5, 13, 2, 0,
                                                tzinfo=tz)
        self.assertEqual('2030-05-13 00:00',
                         payload.lease_payload(lease)['start_date'])

    def test_string_dates_pass_through(self):
        lease = _lease()
        lease['start_date'] = '2030-05-13 00:00'
        doc = payload.lease_payload(lease)
        self.assertEqual('2030-05-13 00:00', doc['start_date'])

    def test_no_reservations(self):
        lease = _lease()
        del lease['reservations']
        self.assertEqual([], payload.lease_payload(lease)['reservations'])

    def test_parse_date(self):
        self.assertEqual(datetime.datetime(2030, 5, 13, 0, 0),
                         payload.parse_date('2030-05-13 00:00'))
        self.assertEqual(datetime.datetime(2030, 5, 13, 0, 0),
                         payload.parse_date('2030-05-13T02:00:00+02:00'))
        self.assertIsNone(payload.parse_date('tomorrow'))
        self.assertIsNone(payload.parse_date(None))


class ContextPayloadTest(base.TestCase):

    def test_request_user_and_lease_project(self):
        self.conf.set_override('region_name', 'RegionOne',
                               group='enforcement_keystone')
        ctx = payload.context_payload(
            {'user_id': 'admin-user', 'project_id': 'admin-project'},
            self.conf, {'user_id': 'u1', 'project_id': 'p1'})
        self.assertEqual({'user_id': 'admin-user', 'project_id': 'p1',
                          'auth_url': None, 'region_name': 'RegionOne'},
                         ctx)

    def test_request_context_object(self):
        ctx = payload.context_payload(
            context.RequestContext(user_id='u2', project_id='p2'),
            self.conf, {})
        self.assertEqual('u2', ctx['user_id'])
        self.assertEqual('p2', ctx['project_id'])

    def test_lease_owner_for_on_end(self):
        ctx = payload.context_payload({'user_id': 'admin'}, self.conf,
                                      {'user_id': 'u1', 'project_id': 'p1'},
                                      prefer_lease_owner=True)
        self.assertEqual('u1', ctx['user_id'])

    def test_auth_url_of_loaded_plugin(self):
        # Plugin options exist once the plugin is loaded from the config.
        # A private ConfigOpts: loading registers options for good.
        conf = cfg.ConfigOpts()
        # Fresh groups: a copied OptGroup shares its option dict.
        for name in ('enforcement', 'enforcement_external',
                     'enforcement_keystone'):
            conf.register_group(cfg.OptGroup(name))
        enforcement_conf.register_opts(conf)
        path = self.create_tempfiles([(
            'blazar-ext', '[enforcement_keystone]\nauth_type = password\n'
                          'auth_url = https://ks.example.com/v3\n')])[0]
        conf(['--config-file', path], project='blazar-ext',
             default_config_files=[])
        self.assertIsNone(payload.context_payload({}, conf)['auth_url'])
        keystone.load_session(conf)
        self.assertEqual('https://ks.example.com/v3',
                         payload.context_payload({}, conf)['auth_url'])
