"""flavor:instance reservations: the size and host traits come from the
flavor (static source: a YAML file)."""

import os

import fixtures
import sqlalchemy as sa

from blazar_ext.tests import base
from blazar_ext.tests.functional import backends

PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}
FLAVORS = """
flavors:
  - {id: m4, vcpus: 4, ram: 4096, disk: 20}
  - id: small-override
    vcpus: 8
    ram: 1024
    disk: 10
    extra_specs: {"resources:VCPU": "2"}
  - id: gpu
    vcpus: 4
    ram: 4096
    disk: 20
    extra_specs: {"trait:CUSTOM_GPU": required}
  - id: exotic
    vcpus: 1
    ram: 512
    disk: 1
    extra_specs: {"resources:CUSTOM_FPGA": "1"}
  - {id: scratch, vcpus: 1, ram: 512, disk: 10, ephemeral: 5}
  - id: pinned
    vcpus: 2
    ram: 512
    disk: 1
    extra_specs: {"hw:cpu_policy": dedicated}
"""


def flavored(**values) -> dict:
    return dict({'resource_type': 'flavor:instance', 'flavor_id': 'm4',
                 'amount': 1, 'affinity': None}, **values)


class TestFlavorInstance(base.LeaseTestCase):

    def setUp(self):
        super().setUp()
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'flavors.yaml')
        with open(path, 'w') as f:
            f.write(FLAVORS)
        self.conf.set_override('flavors_file', path, group='manager')

    def add(self, name: str, **values) -> dict:
        return self.add_host(name, vcpus=8, memory_mb=16384, local_gb=100,
                             **values)

    def test_size_from_the_flavor(self):
        self.add('h1')
        lease = self.create(reservations=[flavored(amount=2)])
        [reservation] = lease['reservations']
        self.assertEqual(('m4', 2, 4, 4096, 20), tuple(
            reservation[k] for k in ('flavor_id', 'amount', 'vcpus',
                                     'memory_mb', 'disk_gb')))
        resp = self.request('POST', '/v1/leases', {
            'name': 'more', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120),
            'reservations': [flavored()]})
        self.assertEqual(409, resp.status, resp.text)
        self.assertIn('VCPU (4 needed, 0 free)', resp.text)

    def test_resources_extra_specs_override_the_size(self):
        self.add('h1')
        lease = self.create(reservations=[flavored(
            flavor_id='small-override', amount=4)])
        self.assertEqual(2, lease['reservations'][0]['vcpus'])

    def test_the_ephemeral_disk_counts_with_the_root_disk(self):
        # As upstream Blazar reserves DISK_GB for such a flavor.
        self.add('h1')
        lease = self.create(reservations=[flavored(flavor_id='scratch')])
        self.assertEqual(15, lease['reservations'][0]['disk_gb'])

    def test_trait_extra_specs_choose_the_hosts(self):
        self.add('plain')
        gpu = self.add('gpu-host')
        self.request('PUT', '/placement/traits/CUSTOM_GPU',
                     headers=PLACEMENT)
        [provider] = self.request(
            'GET', '/placement/resource_providers?name=gpu-host',
            headers=PLACEMENT).json()['resource_providers']
        resp = self.request(
            'PUT', '/placement/resource_providers/%s/traits'
            % provider['uuid'],
            {'traits': ['CUSTOM_GPU'],
             'resource_provider_generation': provider['generation']},
            headers=PLACEMENT)
        self.assertEqual(200, resp.status, resp.text)
        lease = self.create(reservations=[flavored(flavor_id='gpu',
                                                   amount=2)])
        self.assertEqual([str(gpu['id'])], self.hosts_of(lease))
        resp = self.request('POST', '/v1/leases', {
            'name': 'more', 'start_date': base.lease_date(60),
            'end_date': base.lease_date(120),
            'reservations': [flavored(flavor_id='gpu')]})
        self.assertEqual(409, resp.status, resp.text)

    def hosts_of(self, lease: dict) -> list:
        with self.db.engine.connect() as conn:
            return sorted(str(h) for (h,) in conn.execute(sa.text(
                'SELECT compute_host_id FROM instance_allocations WHERE '
                'reservation_id = :r'),
                {'r': lease['reservations'][0]['id']}))

    def test_bad_flavors_are_400(self):
        self.add('h1')
        for bad, words in ((flavored(flavor_id='nope'), "'nope' is not"),
                           (flavored(flavor_id='exotic'), 'CUSTOM_FPGA'),
                           (flavored(flavor_id='pinned'),
                            'hw:cpu_policy=dedicated'),
                           (flavored(flavor_id=None), 'flavor_id')):
            resp = self.request('POST', '/v1/leases', {
                'name': 'bad', 'start_date': base.lease_date(60),
                'end_date': base.lease_date(120), 'reservations': [bad]})
            self.assertEqual(400, resp.status, resp.text)
            self.assertIn(words, resp.text)

    def test_update_to_another_flavor_before_start(self):
        self.add('h1')
        lease = self.create(reservations=[flavored(amount=2)])
        [reservation] = lease['reservations']
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'reservations': [{'id': reservation['id'],
                              'flavor_id': 'small-override',
                              'amount': 4}]})
        self.assertEqual(200, resp.status, resp.text)
        updated = resp.json()['lease']['reservations'][0]
        self.assertEqual(('small-override', 4, 2), (
            updated['flavor_id'], updated['amount'], updated['vcpus']))


# The same on MariaDB/MySQL and PostgreSQL (skipped without them).
TestFlavorInstanceMySQL, TestFlavorInstancePostgreSQL = (
    backends.on_each_backend(TestFlavorInstance))
