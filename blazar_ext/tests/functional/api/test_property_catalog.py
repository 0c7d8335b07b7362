"""Discovery and the catalog as one product: properties carry the
operators the metadefs catalog gives them, and a lease asks with them."""

import os

import yaml

from blazar_ext.cmd import metadefs
from blazar_ext import context
from blazar_ext.tests import base
from blazar_ext.tests import fixtures

HOST_PROPS = '/v1/physical:host/properties'


class TestPropertyCatalog(base.LeaseTestCase):

    def setUp(self):
        super().setUp()
        metadefs.load(context.get_admin_context(),
                      metadefs.definitions_dir())
        self.h1 = self.add_host('h1', cpu_features='["avx", "aes", "sse"]',
                                label='l1')
        self.h2 = self.add_host('h2', cpu_features='["avx", "sse"]',
                                label='l1')
        self.h3 = self.add_host('h3', cpu_features='["aes", "avx512"]',
                                label='l2')
        for name in ('cpu_features', 'label'):
            resp = self.request('PATCH', '%s/%s' % (HOST_PROPS, name),
                                {'private': False})
            self.assertEqual(204, resp.status, resp.text)

    def _open_to_users(self) -> None:
        """policy.yaml opening discovery to every user (admin by default,
        as the spec says)."""
        path = os.path.join(self.useFixture(
            fixtures.fixtures.TempDir()).path, 'policy.yaml')
        with open(path, 'w') as f:
            yaml.safe_dump({'blazar:properties:list': '@',
                            'blazar:properties:get': '@'}, f)
        self.conf.set_override('policy_file', path, group='oslo_policy')
        fixtures.policy.reset()

    def _by_name(self, items: list) -> dict:
        return {item['property']: item for item in items}

    def test_listing_carries_catalog_operators(self):
        self._open_to_users()
        for headers, token in ((None, 'admin'),
                               (fixtures.user_headers(), None)):
            resp = self.request('GET', HOST_PROPS, headers=headers,
                                token=token)
            self.assertEqual(200, resp.status, resp.text)
            items = self._by_name(resp.json())
            self.assertEqual(['<or>', '<all-in>'],
                             items['cpu_features']['operators'])
            self.assertEqual('array', items['cpu_features']['type'])
            self.assertEqual('string', items['cpu_features']['items_type'])
            # Not in the catalog: only what the capabilities say.
            self.assertEqual({'property': 'label', 'private': False},
                             items['label'])

    def test_show_carries_catalog_operators(self):
        resp = self.request('GET', HOST_PROPS + '/cpu_features')
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(['<or>', '<all-in>'], resp.json()['operators'])

    def test_private_namespace_of_another_project_stays_hidden(self):
        resp = self.request('POST', '/v2/metadefs/namespaces', {
            'namespace': 'Other::Labels', 'visibility': 'private',
            'resource_type_associations': [{'name': 'OS::Blazar::Host'}],
            'properties': {'label': {
                'title': 'Label', 'type': 'string', 'operators': ['<in>']}}})
        self.assertEqual(201, resp.status, resp.text)
        resp = self.request('GET', HOST_PROPS)
        self.assertEqual(['<in>'],
                         self._by_name(resp.json())['label']['operators'])
        self._open_to_users()
        resp = self.request('GET', HOST_PROPS, token=None,
                            headers=fixtures.user_headers())
        self.assertNotIn('operators', self._by_name(resp.json())['label'])

    def test_all_in_lease_picks_exactly_the_hosts_holding_all(self):
        lease = self.create(reservations=[base.host_reservation(
            min=1, max=3, resource_properties=(
                '["<all-in>", "$cpu_features", "avx", "aes"]'))])
        self.assertEqual([self.h1['id']], self.allocated_hosts(lease['id']))
        # h1 is taken; h3 holds aes, h2 does not.
        lease = self.create(name='lease-2', reservations=[
            base.host_reservation(min=1, max=3, resource_properties=(
                '["<all-in>", "$cpu_features", "aes"]'))])
        self.assertEqual([self.h3['id']], self.allocated_hosts(lease['id']))

    def test_all_in_matches_whole_elements_only(self):
        # "avx" is a prefix of h3's "avx512", not an element of it.
        resp = self.request('POST', '/v1/leases', {
            'name': 'no', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120), 'events': [],
            'reservations': [base.host_reservation(
                resource_properties=(
                    '["<all-in>", "$cpu_features", "avx512", "avx"]'))]})
        self.assertEqual(409, resp.status, resp.text)
        lease = self.create(reservations=[base.host_reservation(
            min=1, max=3, resource_properties=(
                '["<all-in>", "$cpu_features", "avx512"]'))])
        self.assertEqual([self.h3['id']], self.allocated_hosts(lease['id']))


class TestInstanceProperties(base.LeaseTestCase):
    """An instance reservation's resource_properties filter the hosts:
    /v1/virtual:instance/properties (and flavor:instance) list the hosts'
    properties, described by the catalog resource type
    OS::Blazar::Instance."""

    TYPES = ('virtual:instance', 'flavor:instance')

    _open_to_users = TestPropertyCatalog._open_to_users

    def setUp(self):
        super().setUp()
        metadefs.load(context.get_admin_context(),
                      metadefs.definitions_dir())
        self.add_host('h1', cpu_features='["avx", "aes"]', rack='r1',
                      label='a')
        self.add_host('h2', cpu_features='["sse"]', rack='r2',
                      secret='x')
        for name in ('cpu_features', 'rack', 'label'):
            resp = self.request('PATCH', '%s/%s' % (HOST_PROPS, name),
                                {'private': False})
            self.assertEqual(204, resp.status, resp.text)

    def test_listing_is_the_hosts_with_the_instance_catalog(self):
        for resource_type in self.TYPES:
            resp = self.request('GET', '/v1/%s/properties?detail=true'
                                % resource_type)
            self.assertEqual(200, resp.status, resp.text)
            items = {item['property']: item for item in resp.json()}
            # Public ones only (secret stays private), values as the spec
            # shows them, operators from the shipped host namespace, which
            # is associated with OS::Blazar::Instance too.
            self.assertEqual({'cpu_features', 'rack', 'label'}, set(items))
            self.assertEqual([{'value': 'r1'}, {'value': 'r2'}],
                             items['rack']['values'])
            self.assertEqual(['<or>', '<all-in>'],
                             items['cpu_features']['operators'])
            resp = self.request('GET', '/v1/%s/properties/rack'
                                % resource_type)
            self.assertEqual(200, resp.status, resp.text)
            self.assertEqual('rack', resp.json()['property'])

    def test_private_property_hidden_by_name(self):
        self._open_to_users()
        resp = self.request('GET', '/v1/virtual:instance/properties/rack',
                            token=None, headers=fixtures.user_headers())
        self.assertEqual(200, resp.status, resp.text)
        resp = self.request('GET', '/v1/virtual:instance/properties/secret',
                            token=None, headers=fixtures.user_headers())
        self.assertEqual(403, resp.status, resp.text)
        self.assertNotIn('secret', resp.text)

    def test_catalog_of_the_instance_type_is_its_own(self):
        resp = self.request('POST', '/v2/metadefs/namespaces', {
            'namespace': 'Instances::Labels', 'visibility': 'public',
            'resource_type_associations': [{'name': 'OS::Blazar::Instance'}],
            'properties': {'label': {
                'title': 'Label', 'type': 'string', 'operators': ['<in>']}}})
        self.assertEqual(201, resp.status, resp.text)
        label = {item['property']: item for item in self.request(
            'GET', '/v1/virtual:instance/properties').json()}['label']
        self.assertEqual(('Label', ['<in>']), (label['title'],
                                               label['operators']))
        # Described for instances, not for hosts.
        label = {item['property']: item for item in self.request(
            'GET', HOST_PROPS).json()}['label']
        self.assertEqual({'property': 'label', 'private': False}, label)

    def test_visibility_is_set_on_the_hosts(self):
        resp = self.request('PATCH', '/v1/virtual:instance/properties/rack',
                            {'private': True})
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('/v1/physical:host/properties', resp.text)
        self.assertFalse(self.request(
            'GET', HOST_PROPS + '/rack').json()['private'])

    def test_disabled_type_has_no_properties(self):
        self.conf.set_override('plugins', ['physical.host.plugin'],
                               group='manager')
        self.assertEqual(404, self.request(
            'GET', '/v1/virtual:instance/properties').status)
        self.assertEqual(200, self.request('GET', HOST_PROPS).status)
