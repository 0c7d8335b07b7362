"""Hosts out of service and back, and the reservations they held healed:
through the API (PUT /v1/os-hosts/{id}), blazar-ext-manage and
python-blazarclient."""

import argparse
import os
import subprocess
import sys

import sqlalchemy as sa

from blazar_ext.cmd import hosts as hosts_cmd
from blazar_ext import context
from blazar_ext.db.api import allocation as allocation_api
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional import cli

host_reservation = base.host_reservation
NET = 'public-net'


class TestOutOfService(base.HostServiceTestCase):

    def test_disable_and_enable_through_the_api(self):
        host = self.add_host('h1')
        self.assertTrue(host['reservable'])
        self.assertIsNone(host['reservable_reason'])
        out = self.set_reservable(host, False, reason='disk failure')
        self.assertFalse(out['reservable'])
        self.assertEqual('disk failure', out['reservable_reason'])
        self.assertEqual(out, self.host(host))
        self.assertIn('COMPUTE_STATUS_DISABLED', self.provider_traits('h1'))
        # Out of service: nothing new lands on it.
        self.create(expect=409)
        back = self.set_reservable(host, 'True')
        self.assertTrue(back['reservable'])
        self.assertIsNone(back['reservable_reason'])
        self.assertNotIn('COMPUTE_STATUS_DISABLED',
                         self.provider_traits('h1'))
        lease = self.create()
        self.assertEqual([host['id']], self.allocated_hosts(lease['id']))

    def test_trait_change_bumps_the_provider_generation(self):
        self.add_host('h1')
        before = self.provider('h1')['generation']
        host = self.request('GET', '/v1/os-hosts').json()['hosts'][0]
        self.set_reservable(host, False)
        self.assertEqual(before + 1, self.provider('h1')['generation'])
        self.set_reservable(host, False, reason='still down')
        self.assertEqual(before + 1, self.provider('h1')['generation'])

    def test_capabilities_and_state_in_one_request(self):
        host = self.add_host('h1', rack='r1')
        resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'],
                            {'rack': 'r2', 'reservable': 'false'})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual('r2', resp.json()['host']['rack'])
        self.assertFalse(resp.json()['host']['reservable'])

    def test_bad_state_input_is_400(self):
        host = self.add_host('h1')
        reason_alone = ('reservable_reason is the reason for taking a host '
                        'out of service: give it with reservable false')
        for body, reason in (
                ({'reservable': 'maybe'},
                 "'reservable': 'maybe' does not match "
                 "'^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$'"),
                ({'reservable': 0},
                 "'reservable': 0 is not valid under any of the given "
                 "schemas"),
                ({'reservable_reason': 'no flag'}, reason_alone),
                ({'reservable': True, 'reservable_reason': 'why'},
                 reason_alone),
                ({'reservable': False, 'reservable_reason': 'x' * 256},
                 "'reservable_reason' is longer than 255 characters"),
                ({'disabled': True},
                 'disabled cannot be changed on a registered host; only '
                 'extra capabilities and reservable can')):
            resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'], body)
            self.assertEqual(400, resp.status, body)
            self.assertIn('Invalid input: ' + reason,
                          resp.json()['error_message'])
        self.assertTrue(self.host(host)['reservable'])
        resp = self.request('POST', '/v1/os-hosts', {
            'name': 'h2', 'reservable_reason': 'x'})
        self.assertEqual(400, resp.status, resp.text)

    def test_unknown_host_is_404(self):
        resp = self.request('PUT', '/v1/os-hosts/999',
                            {'reservable': False})
        self.assertEqual(404, resp.status, resp.text)

    def test_non_admin_cannot_disable(self):
        host = self.add_host('h1')
        resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'],
                            {'reservable': False}, token=None,
                            headers=fixtures.user_headers())
        self.assertEqual(403, resp.status, resp.text)
        self.assertTrue(self.host(host)['reservable'])


class TestManageCommand(base.HostServiceTestCase):

    def manage(self, *argv: str) -> int:
        parser = argparse.ArgumentParser()
        hosts_cmd.add_parsers(parser.add_subparsers(dest='action',
                                                    required=True))
        return hosts_cmd.__dict__[argv[0]](parser.parse_args(list(argv)))

    def test_disable_enable_by_name_with_reason(self):
        host = self.add_host('node-1')
        self.assertEqual(0, self.manage('disable', 'node-1', '--reason',
                                        'PSU replaced'))
        shown = self.host(host)
        self.assertFalse(shown['reservable'])
        self.assertEqual('PSU replaced', shown['reservable_reason'])
        self.assertEqual(0, self.manage('enable', host['id']))
        self.assertTrue(self.host(host)['reservable'])
        self.assertEqual(1, self.manage('disable', 'no-such-node'))

    def test_console_script_has_the_commands(self):
        script = os.path.join(os.path.dirname(sys.executable),
                              'blazar-ext-manage')
        proc = subprocess.run([script, 'host', 'disable', '--help'],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertIn('--reason', proc.stdout)


class TestBlazarClient(cli.ReservationCommands, base.HostServiceTestCase):
    """``openstack reservation host set --extra reservable=false``."""

    def setUp(self):
        super().setUp()
        self.start_server()

    def test_host_set_reservable_false_and_back(self):
        self.add_host('node-1')
        self.add_host('node-2')
        lease = self.create()
        [held] = self.allocated_hosts(lease['id'])
        name = self.host({'id': held})['hypervisor_hostname']
        self.openstack('host', 'set', '--extra', 'reservable=false',
                       '--extra', 'reservable_reason=fan failure', name)
        shown = self.json('host', 'show', name)
        self.assertFalse(shown['reservable'])
        self.assertEqual('fan failure', shown['reservable_reason'])
        # Healed onto the other host.
        self.assertNotEqual([held], self.allocated_hosts(lease['id']))
        self.openstack('host', 'set', '--extra', 'reservable=true', name)
        shown = self.json('host', 'show', name)
        self.assertTrue(shown['reservable'])


class TestHealing(base.HostServiceTestCase):

    def reservation(self, lease_id: str) -> dict:
        [reservation] = self.show(lease_id)['reservations']
        return reservation

    def test_active_and_future_leases_move_to_free_matching_hosts(self):
        notifications = self.capture_notifications()
        hosts = {name: self.add_host(name, gpu=gpu) for name, gpu in (
            ('a', 'true'), ('b', 'true'), ('c', 'false'), ('d', 'true'))}
        gpu = host_reservation(resource_properties='["==", "$gpu", "true"]')
        # Started by run_events, so no event loop run of the manager's
        # own races it.
        active = self.create('active', start=3, end=120,
                             reservations=[gpu])
        self.run_events(minutes=5)
        self.assertEqual('ACTIVE', self.show(active['id'])['status'])
        future = self.create('future', start=200, end=300,
                             reservations=[gpu])
        [held] = self.allocated_hosts(active['id'])
        self.assertEqual([held], self.allocated_hosts(future['id']))
        # Another GPU host is busy for the active lease's whole window.
        self.create('busy', start='now', end=120, reservations=[
            host_reservation(resource_properties='["==", "$gpu", "true"]')])
        busy = set(self.allocated_hosts(
            self.request('GET', '/v1/leases').json()['leases'][2]['id']))
        self.set_reservable({'id': held}, False, reason='dead')
        moved_active = self.allocated_hosts(active['id'])
        moved_future = self.allocated_hosts(future['id'])
        gpu_ids = {hosts[n]['id'] for n in ('a', 'b', 'd')}
        # The busy host is taken only during the active lease's window.
        for moved, allowed in ((moved_active, gpu_ids - {held} - busy),
                               (moved_future, gpu_ids - {held})):
            self.assertEqual(1, len(moved))
            self.assertIn(moved[0], allowed)
        for lease in (active, future):
            reservation = self.reservation(lease['id'])
            self.assertTrue(reservation['resources_changed'])
            self.assertFalse(reservation['missing_resources'])
            self.assertFalse(self.show(lease['id'])['degraded'])
        healed = [n[1] for n in notifications
                  if n[1]['event_type'] == 'lease.event.healed']
        self.assertEqual({active['id'], future['id']},
                         {n['payload']['id'] for n in healed})
        for n in healed:
            [change] = n['payload']['healed']
            self.assertEqual(held, str(change['from']))

    def test_no_free_host_degrades_then_a_new_host_heals(self):
        notifications = self.capture_notifications()
        h1 = self.add_host('h1', gpu='true')
        self.add_host('h2', gpu='false')
        lease = self.create(reservations=[host_reservation(
            resource_properties='["==", "$gpu", "true"]')])
        self.set_reservable(h1, False)
        # The allocation stays; the lease needs an operator.
        self.assertEqual([h1['id']], self.allocated_hosts(lease['id']))
        self.assertTrue(self.reservation(lease['id'])['missing_resources'])
        self.assertTrue(self.show(lease['id'])['degraded'])
        listed = self.request('GET', '/v1/leases?degraded=true').json()
        self.assertEqual([lease['id']], [x['id'] for x in listed['leases']])
        self.assertEqual([], self.request(
            'GET', '/v1/leases?degraded=false').json()['leases'])
        self.assertEqual(['lease.degraded'], [
            n[1]['event_type'] for n in notifications
            if n[1]['event_type'].startswith('lease.degraded')])
        h3 = self.add_host('h3', gpu='true')
        self.assertEqual([h3['id']], self.allocated_hosts(lease['id']))
        reservation = self.reservation(lease['id'])
        self.assertFalse(reservation['missing_resources'])
        self.assertTrue(reservation['resources_changed'])
        self.assertFalse(self.show(lease['id'])['degraded'])
        self.assertEqual([], self.request(
            'GET', '/v1/leases?degraded=true').json()['leases'])

    def test_degraded_lease_recovers_when_its_host_comes_back(self):
        h1 = self.add_host('h1')
        lease = self.create()
        self.set_reservable(h1, False)
        self.assertTrue(self.show(lease['id'])['degraded'])
        self.set_reservable(h1, True)
        self.assertEqual([h1['id']], self.allocated_hosts(lease['id']))
        reservation = self.reservation(lease['id'])
        self.assertFalse(reservation['missing_resources'])
        self.assertFalse(reservation['resources_changed'])
        self.assertFalse(self.show(lease['id'])['degraded'])

    def test_replacement_honours_traits_and_cleaning_time(self):
        self.conf.set_override('cleaning_time', 30, group='manager')
        self.add_host('a')
        self.add_host('b')
        self.add_host('c')
        self.set_traits('b', 'CUSTOM_GPU')
        self.set_traits('c', 'CUSTOM_GPU')
        self.set_traits('a', 'CUSTOM_GPU')
        lease = self.create(start=100, end=200, reservations=[
            host_reservation(traits='CUSTOM_GPU')])
        [held] = self.allocated_hosts(lease['id'])
        # Another lease ends 10 minutes before ours starts on one of the
        # others: within the cleaning time, so not a replacement.
        other = self.create('other', start=40, end=90, reservations=[
            host_reservation(traits='CUSTOM_GPU')])
        [near] = self.allocated_hosts(other['id'])
        self.set_reservable({'id': held}, False)
        [moved] = self.allocated_hosts(lease['id'])
        self.assertNotIn(moved, (held, near))
        # Without the trait nothing fits: degraded.
        self.set_traits(self.host({'id': moved})['hypervisor_hostname'])
        self.set_reservable({'id': moved}, False)
        self.assertTrue(self.show(lease['id'])['degraded'])

    def test_each_window_gets_a_host_free_in_that_window(self):
        # Two reservations leave one host together: x is busy only in the
        # first one's window, y only in the second's.
        a = self.add_host('a', slot='a')
        x = self.add_host('x', slot='x')
        y = self.add_host('y', slot='y')
        first = self.create('first', start=60, end=120)
        second = self.create('second', start=180, end=240)
        self.assertEqual([a['id']], self.allocated_hosts(first['id']))
        self.assertEqual([a['id']], self.allocated_hosts(second['id']))
        self.create('on-x', start=60, end=120, reservations=[
            host_reservation(resource_properties='["==", "$slot", "x"]')])
        self.create('on-y', start=180, end=240, reservations=[
            host_reservation(resource_properties='["==", "$slot", "y"]')])
        self.set_reservable(a, False)
        self.assertEqual([y['id']], self.allocated_hosts(first['id']))
        self.assertEqual([x['id']], self.allocated_hosts(second['id']))

    def test_ended_and_deleted_leases_are_left_alone(self):
        h1 = self.add_host('h1')
        self.add_host('h2')
        lease = self.create()
        self.request('DELETE', '/v1/leases/%s' % lease['id'])
        self.set_reservable(h1, False)
        self.assertEqual([], self.request('GET', '/v1/leases').json()[
            'leases'])

    def test_allocation_listing_shows_the_host_state(self):
        h1 = self.add_host('h1')
        lease = self.create()
        self.set_reservable(h1, False, reason='bad RAM')
        [allocation] = self.request(
            'GET', '/v1/os-hosts/allocations?lease_id=%s'
            % lease['id']).json()['allocations']
        self.assertFalse(allocation['reservable'])
        shown = self.request('GET', '/v1/os-hosts/%s/allocation'
                             % h1['id']).json()['allocation']
        self.assertFalse(shown['reservable'])

    def test_bad_degraded_filter_is_400(self):
        resp = self.request('GET', '/v1/leases?degraded=maybe')
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('degraded', resp.json()['error_message'])


class TestFloatingIPHealing(base.HostServiceTestCase):
    """virtual:floatingip heals through the same hook."""

    def add_fip(self, address: str) -> dict:
        resp = self.request('POST', '/v1/floatingips', {
            'floating_network_id': NET, 'floating_ip_address': address})
        self.assertEqual(201, resp.status, resp.text)
        return resp.json()['floatingip']

    def held(self, reservation_id: str) -> list:
        return allocation_api.floatingip_allocation_list(
            context.get_admin_context(), reservation_id)

    def set_fip_reservable(self, fip: dict, reservable: bool) -> None:
        self.manager.service.endpoint.healer.set_reservable(
            context.get_admin_context(), 'virtual:floatingip', fip['id'],
            reservable)

    def test_lost_address_replaced_on_the_same_network(self):
        a = self.add_fip('172.24.4.10')
        b = self.add_fip('172.24.4.11')
        lease = self.create(reservations=[{
            'resource_type': 'virtual:floatingip', 'network_id': NET,
            'amount': 1}])
        [reservation] = self.show(lease['id'])['reservations']
        [held] = self.held(reservation['id'])
        self.set_fip_reservable(a if held == a['id'] else b, False)
        [moved] = self.held(reservation['id'])
        self.assertEqual({a['id'], b['id']} - {held}, {moved})
        [reservation] = self.show(lease['id'])['reservations']
        self.assertTrue(reservation['resources_changed'])
        self.assertFalse(self.show(lease['id'])['degraded'])

    def test_required_address_cannot_be_replaced(self):
        a = self.add_fip('172.24.4.10')
        self.add_fip('172.24.4.11')
        lease = self.create(reservations=[{
            'resource_type': 'virtual:floatingip', 'network_id': NET,
            'amount': 1, 'required_floatingips': ['172.24.4.10']}])
        self.set_fip_reservable(a, False)
        [reservation] = self.show(lease['id'])['reservations']
        self.assertEqual([a['id']], self.held(reservation['id']))
        self.assertTrue(reservation['missing_resources'])
        self.assertTrue(self.show(lease['id'])['degraded'])
        self.set_fip_reservable(a, True)
        self.assertFalse(self.show(lease['id'])['degraded'])


def instances(**values) -> dict:
    spec = {'resource_type': 'virtual:instance', 'amount': 2, 'vcpus': 4,
            'memory_mb': 4096, 'disk_gb': 20, 'affinity': None,
            'resource_properties': ''}
    spec.update(values)
    return spec


class TestInstanceHealing(base.HostServiceTestCase):
    """virtual:instance slots on a failed host are packed anew."""

    def add_sized(self, name: str, **values) -> dict:
        return self.add_host(name, vcpus=8, memory_mb=16384, local_gb=100,
                             **values)

    def slots(self, lease: dict) -> dict:
        [reservation] = self.show(lease['id'])['reservations']
        with self.db.engine.connect() as conn:
            rows = conn.execute(sa.text(
                'SELECT compute_host_id, slots FROM instance_allocations '
                'WHERE reservation_id = :r'), {'r': reservation['id']})
            return {str(h): n for h, n in rows}

    def test_slots_move_and_the_others_stay(self):
        hosts = [self.add_sized('h%d' % i)['id'] for i in range(3)]
        lease = self.create(reservations=[instances(amount=3)])
        held = self.slots(lease)
        self.assertEqual(3, sum(held.values()))
        self.assertEqual(2, len(held))
        [full] = [h for h, n in held.items() if n == 2]
        [other] = [h for h, n in held.items() if n == 1]
        self.set_reservable({'id': full}, False)
        moved = self.slots(lease)
        self.assertEqual(3, sum(moved.values()))
        self.assertNotIn(full, moved)
        # The instance on the healthy host stays where it runs.
        self.assertGreaterEqual(moved[other], 1)
        self.assertTrue(set(moved) <= set(hosts) - {full})
        [reservation] = self.show(lease['id'])['reservations']
        self.assertTrue(reservation['resources_changed'])
        self.assertFalse(self.show(lease['id'])['degraded'])

    def test_affinity_without_room_degrades_then_heals(self):
        h1 = self.add_sized('h1')
        self.add_sized('h2', small='yes')
        self.create('filler', reservations=[instances(
            amount=1, vcpus=6, resource_properties='["==", "$small", '
            '"yes"]')])
        lease = self.create(reservations=[instances(
            amount=2, affinity=True)])
        self.assertEqual({h1['id']: 2}, self.slots(lease))
        self.set_reservable(h1, False)
        # h2 has room for one only: nothing moves, the lease is degraded.
        self.assertEqual({h1['id']: 2}, self.slots(lease))
        self.assertTrue(self.show(lease['id'])['degraded'])
        h3 = self.add_sized('h3')
        self.assertEqual({h3['id']: 2}, self.slots(lease))
        self.assertFalse(self.show(lease['id'])['degraded'])

    def test_active_reservation_providers_follow_the_slots(self):
        for i in range(3):
            self.add_sized('h%d' % i)
        # Starts in a few minutes, started by run_events: no event loop
        # run of the manager's own races it.
        lease = self.create(start=3, end=120, reservations=[instances(
            amount=2, affinity=False)])
        self.run_events(minutes=5)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        [reservation] = self.show(lease['id'])['reservations']
        rc = reservation['resource_class']
        names = {h['id']: h['hypervisor_hostname'] for h in self.request(
            'GET', '/v1/os-hosts').json()['hosts']}
        before = self.slots(lease)
        self.assertEqual({'blazar_' + names[h] for h in before},
                         set(self.reserved_on(rc)))
        failed = sorted(before)[0]
        self.set_reservable({'id': failed}, False)
        after = self.slots(lease)
        self.assertNotIn(failed, after)
        self.assertEqual({'blazar_' + names[h] for h in after},
                         set(self.reserved_on(rc)))

    def reserved_on(self, resource_class: str) -> dict:
        """{child provider name: capacity} offering the class."""
        resp = self.request(
            'GET', '/placement/allocation_candidates?resources=%s:1'
            % resource_class, headers=base.PLACEMENT_LATEST)
        self.assertEqual(200, resp.status, resp.text)
        by_uuid = {p['uuid']: p['name'] for p in self.request(
            'GET', '/placement/resource_providers',
            headers=base.PLACEMENT_LATEST).json()['resource_providers']}
        # From 1.29 the summaries cover whole trees: the hosts too.
        return {by_uuid[uuid]: s['resources'][resource_class]['capacity']
                for uuid, s in resp.json()['provider_summaries'].items()
                if resource_class in s['resources']}


# Healing again on MariaDB/MySQL and PostgreSQL (skipped without them).
TestHealingMySQL, TestHealingPostgreSQL = (
    backends.on_each_backend(TestHealing))
TestInstanceHealingMySQL, TestInstanceHealingPostgreSQL = (
    backends.on_each_backend(TestInstanceHealing))
TestOutOfServiceMySQL, TestOutOfServicePostgreSQL = (
    backends.on_each_backend(TestOutOfService))
