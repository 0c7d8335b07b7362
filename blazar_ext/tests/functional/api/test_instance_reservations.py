"""virtual:instance reservations through the whole service: capacity from
the hosts' Placement inventories, peak load over the window, affinity,
exclusion with physical:host reservations, and updates; on SQLite, and
on MariaDB/MySQL and PostgreSQL where they answer."""

import sqlalchemy as sa

from blazar_ext.tests import base
from blazar_ext.tests.functional import backends


def instances(**values) -> dict:
    spec = {'resource_type': 'virtual:instance', 'amount': 1, 'vcpus': 4,
            'memory_mb': 4096, 'disk_gb': 20, 'affinity': None,
            'resource_properties': ''}
    spec.update(values)
    return spec


class InstanceTestCase(base.LeaseTestCase):

    def add_hosts(self, count: int, vcpus: int = 8, **values) -> list:
        return [self.add_host('h%d' % i, vcpus=vcpus, memory_mb=16384,
                              local_gb=100, **values)['id']
                for i in range(1, count + 1)]

    def slots(self, lease: dict) -> dict:
        """{host id: slots} the lease's instance reservation holds."""
        [reservation] = lease['reservations']
        with self.db.engine.connect() as conn:
            rows = conn.execute(sa.text(
                'SELECT compute_host_id, slots FROM instance_allocations '
                'WHERE reservation_id = :r'), {'r': reservation['id']})
            return {str(h): n for h, n in rows}

    def refused(self, reservations, start=60, end=120, expect=409) -> str:
        before = len(self.request('GET', '/v1/leases').json()['leases'])
        resp = self.request('POST', '/v1/leases', {
            'name': 'refused', 'start_date': base.lease_date(start),
            'end_date': base.lease_date(end),
            'reservations': reservations})
        self.assertEqual(expect, resp.status, resp.text)
        # Nothing is left behind.
        self.assertEqual(before, len(
            self.request('GET', '/v1/leases').json()['leases']))
        return resp.json()['error_message']


class TestCapacity(InstanceTestCase):

    def test_create_show_and_capacity_from_inventories(self):
        self.add_hosts(2)
        lease = self.create(reservations=[instances(amount=3)])
        [reservation] = lease['reservations']
        self.assertEqual(
            {'resource_type': 'virtual:instance', 'amount': 3, 'vcpus': 4,
             'memory_mb': 4096, 'disk_gb': 20, 'affinity': None,
             'resource_properties': ''},
            {k: reservation[k] for k in instances()})
        self.assertEqual(3, sum(self.slots(lease).values()))
        # 16 VCPU in all, 12 held: two more instances of 4 do not fit...
        message = self.refused([instances(amount=2)])
        self.assertIn('VCPU (8 needed, 4 free)', message)
        # ...but one does, and any number in another window.
        self.create(name='one', reservations=[instances()])
        self.create(name='later', start=200, end=300,
                    reservations=[instances(amount=4)])

    def test_load_is_the_peak_over_the_window_not_the_sum(self):
        self.add_hosts(1, vcpus=12)
        self.create(name='a', start=60, end=120,
                    reservations=[instances(amount=2)])
        self.create(name='b', start=130, end=200,
                    reservations=[instances(amount=2)])
        # a and b never overlap: across both windows 8 of 12 VCPU are in
        # use at most, so one more instance of 4 fits; a sum would refuse.
        self.create(name='c', start=60, end=200,
                    reservations=[instances(amount=1)])
        self.assertIn('VCPU (4 needed, 0 free)', self.refused(
            [instances(amount=1)], start=100, end=140))

    def test_allocation_ratio_and_reserved_count(self):
        [host_id] = self.add_hosts(1)
        provider = self.request(
            'GET', '/placement/resource_providers?name=h1',
            headers=base_placement()).json()['resource_providers'][0]
        resp = self.request(
            'PUT', '/placement/resource_providers/%s/inventories/VCPU'
            % provider['uuid'],
            {'resource_provider_generation': provider['generation'],
             'total': 8, 'reserved': 2, 'allocation_ratio': 2.0},
            headers=base_placement())
        self.assertEqual(200, resp.status, resp.text)
        # (8 - 2) x 2.0 = 12 VCPU: three instances of 4, not four.
        self.create(reservations=[instances(amount=3, memory_mb=1024)])
        self.refused([instances(amount=1, memory_mb=1024)])

    def provider(self, name: str) -> dict:
        return self.request(
            'GET', '/placement/resource_providers?name=%s' % name,
            headers=base_placement()).json()['resource_providers'][0]

    def test_capacity_follows_every_inventory_write(self):
        self.add_hosts(1)
        uuid = self.provider('h1')['uuid']
        # No VCPU inventory: no capacity for an instance.
        resp = self.request(
            'DELETE', '/placement/resource_providers/%s/inventories/VCPU'
            % uuid, headers=base_placement())
        self.assertEqual(204, resp.status, resp.text)
        self.assertIn('VCPU (4 needed, 0 free)',
                      self.refused([instances()]))
        # All inventories replaced at once: 6 VCPU, one instance of 4.
        resp = self.request(
            'PUT', '/placement/resource_providers/%s/inventories' % uuid,
            {'resource_provider_generation':
                self.provider('h1')['generation'],
             'inventories': {'VCPU': {'total': 6},
                             'MEMORY_MB': {'total': 16384},
                             'DISK_GB': {'total': 100}}},
            headers=base_placement())
        self.assertEqual(200, resp.status, resp.text)
        self.create(reservations=[instances()])
        self.assertIn('VCPU (4 needed, 2 free)',
                      self.refused([instances()]))

    def test_a_provider_registered_before_its_host(self):
        # A compute service registered the provider first; the host
        # adopts it, and its inventory (4 VCPU, not the 8 the host
        # registration says) is the capacity.
        resp = self.request('POST', '/placement/resource_providers',
                            {'name': 'h1'}, headers=base_placement())
        self.assertEqual(200, resp.status, resp.text)
        uuid = resp.json()['uuid']
        resp = self.request(
            'PUT', '/placement/resource_providers/%s/inventories' % uuid,
            {'resource_provider_generation': 0,
             'inventories': {'VCPU': {'total': 4},
                             'MEMORY_MB': {'total': 16384},
                             'DISK_GB': {'total': 100}}},
            headers=base_placement())
        self.assertEqual(200, resp.status, resp.text)
        self.add_hosts(1)
        self.create(reservations=[instances()])
        self.assertIn('VCPU (4 needed, 0 free)',
                      self.refused([instances()]))

    def test_a_loaded_host_with_more_room_comes_first(self):
        # h1 is idle with room for 2; h2 holds one instance and has room
        # for 3 more: the roomiest host is the loaded one, though the
        # idle host alone would hold the one instance asked.
        self.add_host('h1', vcpus=8, memory_mb=65536, local_gb=1000)
        big = self.add_host('h2', vcpus=16, memory_mb=65536,
                            local_gb=1000)
        self.create(name='a', start=30, end=200, reservations=[
            instances(affinity=True)])
        lease = self.create(name='b', reservations=[instances()])
        self.assertEqual({big['id']: 1}, self.slots(lease))

    def test_resource_properties_choose_the_hosts(self):
        self.add_host('plain', vcpus=8, memory_mb=16384, local_gb=100)
        gpu = self.add_host('gpu', vcpus=8, memory_mb=16384, local_gb=100,
                            gpu='true')
        lease = self.create(reservations=[instances(
            amount=2, resource_properties='["==", "$gpu", "true"]')])
        self.assertEqual({str(gpu['id']): 2}, self.slots(lease))
        self.refused([instances(
            resource_properties='["==", "$gpu", "true"]')])

    def test_bad_requests_are_400(self):
        self.add_hosts(1)
        integer = ('virtual:instance reservation: %s must be an integer '
                   'from 1 to 2147483647, got %s')
        for bad, reason in (
                (instances(vcpus=0), integer % ('vcpus', '0')),
                (instances(amount='x'), integer % ('amount', "'x'")),
                (instances(affinity='maybe'),
                 "virtual:instance reservation: affinity must be true, "
                 "false or null, got 'maybe'"),
                (instances(resource_properties='['),
                 'resource_properties: not valid JSON (Expecting value: '
                 'line 1 column 2 (char 1))')):
            message = self.refused([bad], expect=400)
            self.assertEqual('Invalid input: ' + reason, message, bad)


class TestAffinity(InstanceTestCase):

    def test_affinity_true_puts_all_on_one_host(self):
        self.add_hosts(2)
        self.assertIn('no single host', self.refused(
            [instances(amount=3, affinity=True)]))
        lease = self.create(reservations=[instances(amount=2,
                                                    affinity='True')])
        self.assertEqual([2], list(self.slots(lease).values()))

    def test_affinity_false_puts_each_on_its_own_host(self):
        self.add_hosts(2, vcpus=16)
        self.assertIn('fewer than 3 hosts', self.refused(
            [instances(amount=3, affinity=False)]))
        lease = self.create(reservations=[instances(amount=2,
                                                    affinity='False')])
        self.assertEqual([1, 1], list(self.slots(lease).values()))


class TestExclusionWithHosts(InstanceTestCase):

    def test_a_host_reservation_excludes_instances(self):
        self.add_hosts(1)
        self.create(name='whole', reservations=[base.host_reservation()])
        self.refused([instances()], start=90, end=150)
        self.create(name='after', start=130, end=200,
                    reservations=[instances()])

    def test_instances_exclude_a_host_reservation(self):
        self.add_hosts(1)
        self.create(name='slots', reservations=[instances()])
        self.refused([base.host_reservation()], start=90, end=150)


class TestUpdate(InstanceTestCase):

    def update(self, lease, expect=200, **values) -> dict:
        [reservation] = lease['reservations']
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'reservations': [dict(values, id=reservation['id'])]})
        self.assertEqual(expect, resp.status, resp.text)
        return resp.json().get('lease', resp.json())

    def test_before_start_any_field(self):
        self.add_hosts(2)
        lease = self.create(reservations=[instances(amount=2)])
        lease = self.update(lease, vcpus=8, affinity=False)
        self.assertEqual((8, False), (lease['reservations'][0]['vcpus'],
                                      lease['reservations'][0]['affinity']))
        self.assertEqual([1, 1], list(self.slots(lease).values()))
        body = self.update(lease, expect=409, amount=3)
        self.assertIn('VCPU', body['error_message'])
        self.assertEqual(2, self.show(lease['id'])['reservations'][0]
                         ['amount'])

    def test_once_active_only_amount_grows(self):
        self.add_hosts(2)
        lease = self.create(reservations=[instances(amount=2)])
        self.run_events(minutes=61)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        held = self.slots(lease)
        lease = self.update(lease, amount=3)
        grown = self.slots(lease)
        self.assertEqual(3, sum(grown.values()))
        # The running instances keep their hosts.
        for host_id, count in held.items():
            self.assertGreaterEqual(grown[host_id], count)
        self.assertIn('only the amount', self.update(
            lease, expect=409, vcpus=2)['error_message'])
        self.assertIn('not shrink', self.update(
            lease, expect=409, amount=1)['error_message'])
        self.assertIn('VCPU', self.update(
            lease, expect=409, amount=5)['error_message'])

    def test_end_of_lease_releases(self):
        self.add_hosts(1)
        lease = self.create(reservations=[instances(amount=2)])
        self.run_events(minutes=61)
        self.run_events(minutes=121)
        self.assertEqual('TERMINATED', self.show(lease['id'])['status'])
        self.assertEqual({}, self.slots(lease))


def base_placement() -> dict:
    return {'OpenStack-API-Version': 'placement 1.39'}


class TestReservationProviders(InstanceTestCase):
    """At lease start each host used gets a child provider holding
    CUSTOM_RESERVATION_<ID>, one unit per slot; at the end it is gone."""

    def candidates(self, resource_class: str) -> dict:
        resp = self.request(
            'GET', '/placement/allocation_candidates?resources=%s:1'
            % resource_class, headers=base_placement())
        self.assertEqual(200, resp.status, resp.text)
        # From 1.29 the summaries cover every provider of a candidate's
        # tree (the hosts too); keep those holding the class.
        return {uuid: summary for uuid, summary
                in resp.json()['provider_summaries'].items()
                if resource_class in summary['resources']}

    def providers(self) -> dict:
        return {p['name']: p for p in self.request(
            'GET', '/placement/resource_providers',
            headers=base_placement()).json()['resource_providers']}

    def test_providers_while_active_and_gone_after(self):
        self.add_hosts(3)
        lease = self.create(reservations=[instances(amount=3,
                                                    affinity=False)])
        [reservation] = lease['reservations']
        rc = 'CUSTOM_RESERVATION_%s' % reservation['id'].upper().replace(
            '-', '_')
        self.assertEqual(rc, reservation['resource_class'])
        self.assertEqual({'resources:%s' % rc: '1',
                          'aggregate_instance_extra_specs:reservation':
                              reservation['id']},
                         reservation['flavor']['extra_specs'])
        self.assertEqual((4, 4096, 20), (
            reservation['flavor']['vcpus'], reservation['flavor']['ram'],
            reservation['flavor']['disk']))
        # Pending: nothing in Placement yet.
        self.assertEqual(400, self.request(
            'GET', '/placement/allocation_candidates?resources=%s:1' % rc,
            headers=base_placement()).status)

        self.run_events(minutes=61)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        providers = self.providers()
        children = {name: p for name, p in providers.items()
                    if name.startswith('blazar_')}
        self.assertEqual({'blazar_h1', 'blazar_h2', 'blazar_h3'},
                         set(children))
        for name, child in children.items():
            self.assertEqual(providers[name[len('blazar_'):]]['uuid'],
                             child['parent_provider_uuid'])
        summaries = self.candidates(rc)
        self.assertEqual({p['uuid'] for p in children.values()},
                         set(summaries))
        for summary in summaries.values():
            self.assertEqual(1, summary['resources'][rc]['capacity'])

        self.run_events(minutes=121)
        self.assertEqual('TERMINATED', self.show(lease['id'])['status'])
        self.assertEqual(set(), {name for name in self.providers()
                                 if name.startswith('blazar_')})
        self.assertEqual(404, self.request(
            'GET', '/placement/resource_classes/%s' % rc,
            headers=base_placement()).status)

    def test_slots_on_one_host_are_units_of_one_inventory(self):
        self.add_hosts(1)
        lease = self.create(reservations=[instances(amount=2,
                                                    affinity=True)])
        rc = lease['reservations'][0]['resource_class']
        self.run_events(minutes=61)
        child = self.providers()['blazar_h1']
        inventory = self.request(
            'GET', '/placement/resource_providers/%s/inventories/%s'
            % (child['uuid'], rc), headers=base_placement())
        self.assertEqual(200, inventory.status, inventory.text)
        self.assertEqual(2, inventory.json()['total'])
        # A delete while active removes them too.
        self.assertEqual(204, self.request(
            'DELETE', '/v1/leases/%s' % lease['id']).status)
        self.assertNotIn('blazar_h1', self.providers())


# The same on MariaDB/MySQL and PostgreSQL (skipped without them).
TestCapacityMySQL, TestCapacityPostgreSQL = (
    backends.on_each_backend(TestCapacity))
TestAffinityMySQL, TestAffinityPostgreSQL = (
    backends.on_each_backend(TestAffinity))
TestExclusionWithHostsMySQL, TestExclusionWithHostsPostgreSQL = (
    backends.on_each_backend(TestExclusionWithHosts))
TestUpdateMySQL, TestUpdatePostgreSQL = (
    backends.on_each_backend(TestUpdate))
TestReservationProvidersMySQL, TestReservationProvidersPostgreSQL = (
    backends.on_each_backend(TestReservationProviders))
