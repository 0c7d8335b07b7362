"""Hosts and resource providers as one inventory; traits in leases."""

import json

from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

host_reservation = base.host_reservation
PLACEMENT = base.PLACEMENT_LATEST
HostProviderTestCase = base.HostProviderTestCase


class TestHostProvider(HostProviderTestCase):

    def test_registering_a_host_creates_its_provider(self):
        self.add_host('h1', vcpus=16, memory_mb=65536, local_gb=500)
        provider = self.provider('h1')
        resp = self.request('GET', '/placement/resource_providers/%s/'
                            'inventories' % provider['uuid'],
                            headers=PLACEMENT)
        totals = {name: inv['total']
                  for name, inv in resp.json()['inventories'].items()}
        self.assertEqual({'VCPU': 16, 'MEMORY_MB': 65536, 'DISK_GB': 500},
                         totals)

    def test_deleting_the_host_deletes_its_provider(self):
        host = self.add_host('h1')
        self.provider('h1')
        resp = self.request('DELETE', '/v1/os-hosts/%s' % host['id'])
        self.assertEqual(204, resp.status, resp.text)
        resp = self.request('GET', '/placement/resource_providers?name=h1',
                            headers=PLACEMENT)
        self.assertEqual([], resp.json()['resource_providers'])

    def test_provider_cannot_be_deleted_behind_the_host(self):
        host = self.add_host('h1')
        provider = self.provider('h1')
        resp = self.request('DELETE', '/placement/resource_providers/%s'
                            % provider['uuid'], headers=PLACEMENT)
        self.assertEqual(409, resp.status, resp.text)
        self.assertIn('/v1/os-hosts', resp.json()['errors'][0]['detail'])
        resp = self.request('GET', '/v1/os-hosts/%s' % host['id'])
        self.assertEqual(200, resp.status)
        self.provider('h1')

    def test_existing_provider_of_the_same_name_is_adopted(self):
        resp = self.request('POST', '/placement/resource_providers',
                            {'name': 'h1'}, headers=PLACEMENT)
        self.assertEqual(200, resp.status, resp.text)
        uuid = resp.json()['uuid']
        self.add_host('h1')
        self.assertEqual(uuid, self.provider('h1')['uuid'])
        resp = self.request('DELETE', '/placement/resource_providers/%s'
                            % uuid, headers=PLACEMENT)
        self.assertEqual(409, resp.status, resp.text)


class TestLeaseTraits(HostProviderTestCase):

    def setUp(self):
        super().setUp()
        self.plain = self.add_host('plain')
        self.gpu = self.add_host('gpu')
        self.set_traits('gpu', 'CUSTOM_GPU', 'HW_CPU_X86_AVX')
        self.set_traits('plain', 'HW_CPU_X86_AVX')

    def test_forbidden_gpu_never_gets_the_gpu_host(self):
        lease = self.create(reservations=[host_reservation(
            min=1, max=2, traits='!CUSTOM_GPU')])
        self.assertEqual([self.plain['id']], self.allocated_hosts(lease['id']))
        # The plain host is taken: a second such lease finds nothing,
        # though the GPU host is free.
        resp = self.request('POST', '/v1/leases', {
            'name': 'second', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120),
            'reservations': [host_reservation(traits='!CUSTOM_GPU')],
            'events': []})
        self.assertEqual(409, resp.status, resp.text)

    def test_required_trait_gets_the_gpu_host(self):
        lease = self.create(reservations=[host_reservation(
            min=1, max=2, traits='HW_CPU_X86_AVX, CUSTOM_GPU')])
        self.assertEqual([self.gpu['id']], self.allocated_hosts(lease['id']))
        shown = self.show(lease['id'])['reservations'][0]
        self.assertEqual('HW_CPU_X86_AVX, CUSTOM_GPU', shown['traits'])

    def test_any_of_and_list_form(self):
        lease = self.create(reservations=[host_reservation(
            min=2, max=2, traits=['in:CUSTOM_GPU,HW_CPU_X86_AVX',
                                  'HW_CPU_X86_AVX'])])
        self.assertEqual(sorted([self.plain['id'], self.gpu['id']]),
                         self.allocated_hosts(lease['id']))

    def test_host_without_provider_traits_is_not_required_match(self):
        self.add_host('bare')
        lease = self.create(reservations=[host_reservation(
            min=1, max=3, traits='CUSTOM_GPU')])
        self.assertEqual([self.gpu['id']], self.allocated_hosts(lease['id']))

    def test_update_keeps_the_requirement(self):
        lease = self.create(reservations=[host_reservation(
            min=1, max=1, traits='!CUSTOM_GPU')])
        reservation = lease['reservations'][0]
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'reservations': [{'id': reservation['id'], 'max': 2}]})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([self.plain['id']], self.allocated_hosts(lease['id']))

    def test_bad_traits_are_400_naming_them(self):
        for traits, named in (('CUSTOM_GPU,!CUSTOM_GPU', 'CUSTOM_GPU'),
                              ('CUSTOM_GPU,,', 'empty'),
                              ('lower_case', 'lower_case'),
                              ('CUSTOM_UNKNOWN', 'CUSTOM_UNKNOWN')):
            resp = self.request('POST', '/v1/leases', {
                'name': 'bad', 'start_date': base.lease_date(60),
                'end_date': base.lease_date(120),
                'reservations': [host_reservation(traits=traits)],
                'events': []})
            self.assertEqual(400, resp.status, (traits, resp.text))
            self.assertIn(named, resp.json()['error_message'])
        resp = self.request('GET', '/v1/leases')
        self.assertEqual([], resp.json()['leases'])


class TestTraitsInPropertyLanguage(HostProviderTestCase):
    """``$traits`` in resource_properties: traits through the property
    language, which python-blazarclient's --reservation passes as is."""

    def setUp(self):
        super().setUp()
        self.plain = self.add_host('plain')
        self.gpu = self.add_host('gpu')
        self.bare = self.add_host('bare', gpu='true')
        self.set_traits('gpu', 'CUSTOM_GPU', 'HW_CPU_X86_AVX')
        self.set_traits('plain', 'HW_CPU_X86_AVX')
        self.set_traits('bare')

    def hosts_for(self, expression: list) -> list:
        lease = self.create(reservations=[host_reservation(
            min=1, max=3, resource_properties=json.dumps(expression))])
        hosts = self.allocated_hosts(lease['id'])
        resp = self.request('DELETE', '/v1/leases/%s' % lease['id'])
        self.assertEqual(204, resp.status, resp.text)
        return hosts

    def test_required_forbidden_any_and_all(self):
        gpu, plain, bare = self.gpu['id'], self.plain['id'], self.bare['id']
        for expression, hosts in (
                (['==', '$traits', 'CUSTOM_GPU'], [gpu]),
                (['not', ['==', '$traits', 'CUSTOM_GPU']], [plain, bare]),
                (['<all-in>', '$traits', 'HW_CPU_X86_AVX', 'CUSTOM_GPU'],
                 [gpu]),
                (['in', '$traits', 'CUSTOM_GPU', 'HW_CPU_X86_AVX'],
                 [gpu, plain]),
                (['and', ['==', '$traits', 'HW_CPU_X86_AVX'],
                  ['not', ['==', '$traits', 'CUSTOM_GPU']]], [plain]),
                # A capability and a trait together.
                (['or', ['==', '$gpu', 'true'],
                  ['==', '$traits', 'CUSTOM_GPU']], [gpu, bare])):
            self.assertEqual(sorted(hosts), self.hosts_for(expression),
                             expression)

    def test_forbidden_gpu_never_gets_the_gpu_host(self):
        expression = json.dumps(['not', ['==', '$traits', 'CUSTOM_GPU']])
        for name in ('first', 'second'):
            self.create(name=name, reservations=[host_reservation(
                resource_properties=expression)])
        resp = self.request('POST', '/v1/leases', {
            'name': 'third', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120), 'events': [],
            'reservations': [host_reservation(
                resource_properties=expression)]})
        self.assertEqual(409, resp.status, resp.text)

    def test_bad_uses_are_400_naming_them(self):
        for expression, named in (
                (['==', '$traits', 'CUSTOM_NOPE'], 'CUSTOM_NOPE'),
                (['!=', '$traits', 'CUSTOM_GPU'], '"!="'),
                (['<in>', '$traits', 'GPU'], '"<in>"'),
                (['s==', '$traits', 'CUSTOM_GPU'], '"s=="')):
            resp = self.request('POST', '/v1/leases', {
                'name': 'bad', 'start_date': base.lease_date(60),
                'end_date': base.lease_date(120), 'events': [],
                'reservations': [host_reservation(
                    resource_properties=json.dumps(expression))]})
            self.assertEqual(400, resp.status, (expression, resp.text))
            self.assertIn(named, resp.json()['error_message'])
            self.assertIn('$traits', resp.json()['error_message'])
        self.assertEqual([], self.request('GET', '/v1/leases').json()[
            'leases'])


class TestTraitsInPropertyLanguageMySQL(backends.OnBackend,
                                        TestTraitsInPropertyLanguage):
    BACKEND = 'mysql'


class TestTraitsInPropertyLanguagePostgreSQL(backends.OnBackend,
                                             TestTraitsInPropertyLanguage):
    BACKEND = 'postgresql'
