"""Lease update and delete, host allocations routes, host delete guard,
and the enforcement seam."""

import datetime
from unittest import mock

from oslo_utils import timeutils

from blazar_ext import exceptions
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends

_date = base.lease_date
host_reservation = base.host_reservation


class TestLeaseUpdate(base.LeaseTestCase):

    def put(self, lease_id, body, expect=200):
        resp = self.request('PUT', '/v1/leases/%s' % lease_id, body)
        self.assertEqual(expect, resp.status, resp.text)
        return resp.json().get('lease', resp.json())

    def test_rename(self):
        self.add_host('h1')
        lease = self.create()
        updated = self.put(lease['id'], {'name': 'renamed'})
        self.assertEqual('renamed', updated['name'])
        self.assertEqual(lease['start_date'], updated['start_date'])

    def test_change_dates_moves_events_and_window(self):
        self.add_host('h1')
        lease = self.create(start=60, end=120)
        # Written once: a minute may turn between the request and the
        # assertions.
        start, end = _date(200), _date(300)
        updated = self.put(lease['id'], {'start_date': start,
                                         'end_date': end})
        self.assertEqual(start, updated['start_date'][:16]
                         .replace('T', ' '))
        times = {e['event_type']: e['time'][:16].replace('T', ' ')
                 for e in updated['events']}
        self.assertEqual(start, times['start_lease'])
        self.assertEqual(end, times['end_lease'])
        # The old window is free now, the new one taken.
        self.create(name='old-window', start=60, end=120)
        self.create(name='new-window', start=250, end=260, expect=409)

    def test_date_change_reallocates_to_a_free_host(self):
        h1 = self.add_host('h1')
        h2 = self.add_host('h2')
        lease = self.create(name='a', start=60, end=120)
        first = self.allocated_hosts(lease['id'])
        self.assertEqual(1, len(first))
        self.assertIn(first[0], (h1['id'], h2['id']))
        # Both hosts are free then; b takes the one a picked first.
        self.create(name='b', start=200, end=300)
        b_hosts = self.allocated_hosts(
            [x for x in self.request('GET', '/v1/leases').json()['leases']
             if x['name'] == 'b'][0]['id'])
        self.put(lease['id'], {'end_date': _date(250)})
        moved = self.allocated_hosts(lease['id'])
        self.assertEqual(1, len(moved))
        self.assertNotEqual(b_hosts, moved)
        self.assertIn(moved[0], (h1['id'], h2['id']))

    def test_impossible_update_is_409_and_unchanged(self):
        self.add_host('h1')
        lease = self.create(name='a', start=60, end=120)
        self.create(name='b', start=200, end=300)
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'],
                            {'name': 'new', 'end_date': _date(250)})
        self.assertEqual(409, resp.status, resp.text)
        self.assertEqual(lease, self.show(lease['id']))

    def test_increase_min_and_max(self):
        for i in range(3):
            self.add_host('h%d' % i)
        lease = self.create()
        reservation = lease['reservations'][0]
        updated = self.put(lease['id'], {'reservations': [
            {'id': reservation['id'], 'min': 3, 'max': 3}]})
        self.assertEqual(3, updated['reservations'][0]['min'])
        self.assertEqual(3, len(self.allocated_hosts(lease['id'])))
        # Shrinking max drops hosts.
        self.put(lease['id'], {'reservations': [
            {'id': reservation['id'], 'min': 1, 'max': 1}]})
        self.assertEqual(1, len(self.allocated_hosts(lease['id'])))
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'reservations': [{'id': reservation['id'], 'min': 4,
                              'max': 4}]})
        self.assertEqual(409, resp.status, resp.text)
        self.assertEqual(1, len(self.allocated_hosts(lease['id'])))

    def test_change_properties_reallocates(self):
        self.add_host('plain', gpu='false')
        gpu = self.add_host('gpu', gpu='true')
        lease = self.create()
        reservation = lease['reservations'][0]
        updated = self.put(lease['id'], {'reservations': [{
            'id': reservation['id'],
            'resource_properties': '["==", "$gpu", "true"]'}]})
        self.assertEqual('["==", "$gpu", "true"]',
                         updated['reservations'][0]['resource_properties'])
        self.assertEqual([gpu['id']], self.allocated_hosts(lease['id']))

    def test_bad_updates_are_400(self):
        self.add_host('h1')
        lease = self.create()
        for body, word in (({'start_date': '2020-01-01 00:00'}, 'past'),
                           ({'end_date': 'soon'}, 'end_date'),
                           ({'end_date': _date(30)}, 'end_date'),
                           ({'reservations': [{'id': 'nope', 'min': 1}]},
                            'nope'),
                           ({}, '')):
            resp = self.request('PUT', '/v1/leases/%s' % lease['id'], body)
            self.assertEqual(400, resp.status, (body, resp.text))
            self.assertIn(word, resp.json()['error_message'])

    def test_started_lease_start_cannot_change(self):
        self.add_host('h1')
        lease = self.create(start='now', end=60)
        self.run_events()
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'],
                            {'start_date': _date(10)})
        # As upstream: a 400 in its words.
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('Cannot modify the start date of already started '
                      'leases', resp.json()['error_message'])
        # Its end can.
        self.put(lease['id'], {'end_date': _date(90)})

    def test_terminated_lease_cannot_change(self):
        self.add_host('h1')
        lease = self.create(start=10, end=20)
        self.run_events(minutes=30)
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'],
                            {'name': 'x'})
        self.assertEqual(409, resp.status, resp.text)
        self.assertIn('TERMINATED', resp.json()['error_message'])


class TestLeaseDelete(base.LeaseTestCase):

    def test_delete_pending_frees_hosts(self):
        self.add_host('h1')
        lease = self.create()
        resp = self.request('DELETE', '/v1/leases/%s' % lease['id'])
        self.assertEqual(204, resp.status, resp.text)
        self.assertEqual(404, self.request(
            'GET', '/v1/leases/%s' % lease['id']).status)
        self.create(name='again')

    def test_delete_active_and_terminated(self):
        self.add_host('h1')
        lease = self.create(start='now', end=60)
        self.run_events()
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        self.assertEqual(204, self.request(
            'DELETE', '/v1/leases/%s' % lease['id']).status)
        lease = self.create(start=10, end=20)
        self.run_events(minutes=30)
        self.assertEqual(204, self.request(
            'DELETE', '/v1/leases/%s' % lease['id']).status)

    def test_delete_unknown_is_404(self):
        self.assertEqual(404, self.request('DELETE', '/v1/leases/x').status)


class TestHostAllocations(base.LeaseTestCase):

    def held(self, lease: dict) -> dict:
        """How a reservation of ``lease`` appears in an allocation."""
        return {'id': lease['reservations'][0]['id'], 'lease_id': lease['id'],
                'start_date': lease['start_date'],
                'end_date': lease['end_date']}

    def test_allocations_routes(self):
        hosts = [self.add_host(name)['id'] for name in ('h1', 'h2', 'idle')]
        a = self.create(name='a')
        b = self.create(name='b')
        a_host, = self.allocated_hosts(a['id'])
        b_host, = self.allocated_hosts(b['id'])
        self.assertEqual(2, len({a_host, b_host}))
        # Hosts are listed by id; which two a and b hold is the picker's.
        held_by = {h: [] for h in hosts}
        held_by[a_host] = [self.held(a)]
        held_by[b_host] = [self.held(b)]
        order = sorted(hosts)
        resp = self.request('GET', '/v1/os-hosts/allocations')
        self.assertEqual(200, resp.status, resp.text)
        body = resp.json()['allocations']
        # Every host, the idle one with no reservations, as upstream.
        self.assertEqual(
            [{'resource_id': h, 'reservable': True,
              'reservations': held_by[h]} for h in order], body)
        for query, lease in (
                ('reservation_id=%s' % b['reservations'][0]['id'], b),
                ('lease_id=%s' % a['id'], a)):
            resp = self.request('GET', '/v1/os-hosts/allocations?' + query)
            self.assertEqual(
                [[self.held(lease)] if held_by[h] == [self.held(lease)]
                 else [] for h in order],
                [x['reservations'] for x in resp.json()['allocations']],
                query)
        resp = self.request('GET', '/v1/os-hosts/%s/allocation' % a_host)
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual({'resource_id': a_host, 'reservable': True,
                          'reservations': [self.held(a)]},
                         resp.json()['allocation'])
        resp = self.request('GET', '/v1/os-hosts/%s/allocation?lease_id=%s'
                            % (a_host, b['id']))
        self.assertEqual([], resp.json()['allocation']['reservations'])
        resp = self.request('GET', '/v1/os-hosts/999/allocation')
        self.assertEqual(404, resp.status)
        resp = self.request('GET', '/v1/os-hosts/allocations',
                            headers=fixtures.user_headers())
        self.assertEqual(403, resp.status)

    def test_ended_leases_are_left_out_unless_asked_for(self):
        h1 = self.add_host('h1')
        lease = self.create(name='a', start=60, end=120)
        # As seen after the lease's end, before the event loop ends it.
        later = timeutils.utcnow() + datetime.timedelta(minutes=200)
        with mock.patch.object(timeutils, 'utcnow', return_value=later):
            listed = self.request('GET', '/v1/os-hosts/allocations').json()
            asked = self.request('GET', '/v1/os-hosts/allocations?lease_id=%s'
                                 % lease['id']).json()
        self.assertEqual([{'resource_id': h1['id'], 'reservable': True,
                           'reservations': []}], listed['allocations'])
        self.assertEqual([self.held(lease)],
                         asked['allocations'][0]['reservations'])

    def test_host_with_future_allocation_cannot_be_deleted(self):
        host = self.add_host('h1')
        lease = self.create()
        resp = self.request('DELETE', '/v1/os-hosts/%s' % host['id'])
        self.assertEqual(409, resp.status, resp.text)
        self.assertIn('allocations', resp.json()['error_message'])
        self.request('DELETE', '/v1/leases/%s' % lease['id'])
        resp = self.request('DELETE', '/v1/os-hosts/%s' % host['id'])
        self.assertEqual(204, resp.status, resp.text)


class _Rejecting:
    """An enforcement chain that refuses and records what it saw."""

    enabled = True

    def __init__(self, refuse_create=False, refuse_update=False):
        self.refuse_create = refuse_create
        self.refuse_update = refuse_update
        self.seen = []

    def check_create(self, context, lease):
        self.seen.append(('create', lease))
        if self.refuse_create:
            raise exceptions.Forbidden(reason='quota exceeded for p1')

    def check_update(self, context, current, new):
        self.seen.append(('update', current, new))
        if self.refuse_update:
            raise exceptions.Forbidden(reason='too long')

    def on_end(self, context, lease):
        self.seen.append(('end', lease))


class TestEnforcementSeam(base.LeaseTestCase):

    def enforce(self, **kwargs):
        chain = _Rejecting(**kwargs)
        self.manager.service.endpoint.leases.enforcement = chain
        return chain

    def test_rejected_create_is_403_and_lease_in_error(self):
        self.add_host('h1')
        chain = self.enforce(refuse_create=True)
        resp = self.request('POST', '/v1/leases', {
            'name': 'refused', 'start_date': _date(60),
            'end_date': _date(120), 'reservations': [host_reservation()]})
        self.assertEqual(403, resp.status, resp.text)
        self.assertIn('quota exceeded for p1', resp.json()['error_message'])
        leases = self.request('GET', '/v1/leases').json()['leases']
        self.assertEqual([('refused', 'ERROR')],
                         [(x['name'], x['status']) for x in leases])
        self.assertEqual([], [a for a in self.request(
            'GET', '/v1/os-hosts/allocations').json()['allocations']
            if a['reservations']])
        kind, payload = chain.seen[0]
        self.assertEqual('create', kind)
        self.assertEqual('refused', payload['name'])
        self.assertEqual(1, payload['reservations'][0]['min'])

    def test_rejected_update_is_403_and_unchanged(self):
        self.add_host('h1')
        lease = self.create()
        chain = self.enforce(refuse_update=True)
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'],
                            {'end_date': _date(180)})
        self.assertEqual(403, resp.status, resp.text)
        self.assertEqual(lease, self.show(lease['id']))
        kind, current, new = chain.seen[0]
        self.assertEqual(current['end_date'].strftime('%Y-%m-%d %H:%M'),
                         _date(120))
        self.assertEqual(new['end_date'].strftime('%Y-%m-%d %H:%M'),
                         _date(180))

    def test_on_end_at_end_and_at_early_delete(self):
        self.add_host('h1')
        chain = self.enforce()
        lease = self.create(start=10, end=20)
        self.run_events(minutes=30)
        self.assertEqual(('end', lease['id']),
                         (chain.seen[-1][0], chain.seen[-1][1]['id']))
        active = self.create(name='b', start='now', end=60)
        self.run_events()
        self.request('DELETE', '/v1/leases/%s' % active['id'])
        self.assertEqual(('end', active['id']),
                         (chain.seen[-1][0], chain.seen[-1][1]['id']))


# The same on MariaDB/MySQL and PostgreSQL (skipped without them).
TestLeaseUpdateMySQL, TestLeaseUpdatePostgreSQL = (
    backends.on_each_backend(TestLeaseUpdate))


class TestBeforeEndFollowsTheEnd(base.LeaseTestCase):
    """As upstream: extending a lease moves its before-end event with the
    end, at the same distance, and re-arms it if it has run."""

    def before_end(self, lease_id: str) -> dict:
        [event] = [e for e in self.show(lease_id)['events']
                   if e['event_type'] == 'before_end_lease']
        return event

    def put(self, lease_id, body):
        resp = self.request('PUT', '/v1/leases/%s' % lease_id, body)
        self.assertEqual(200, resp.status, resp.text)
        return resp.json()['lease']

    def test_extending_an_active_lease_runs_before_end_again(self):
        self.add_host('h1')
        # Its before-end (an hour before the end) falls at its start.
        lease = self.create(start='now', end=30)
        ran = self.run_events()
        self.assertIn(('before_end_lease', lease['id'], 'DONE'), ran)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])
        before = self.before_end(lease['id'])
        self.assertEqual('DONE', before['status'])
        distance = (datetime.datetime.fromisoformat(
            self.show(lease['id'])['end_date']) -
            datetime.datetime.fromisoformat(before['time']))
        self.put(lease['id'], {'end_date': _date(180)})
        rearmed = self.before_end(lease['id'])
        self.assertEqual('UNDONE', rearmed['status'])
        self.assertEqual(
            datetime.datetime.strptime(_date(180), base.FMT) - distance,
            datetime.datetime.fromisoformat(rearmed['time']))
        # Not due yet; at its new time the manager runs it once more.
        self.assertNotIn('before_end_lease',
                         [e[0] for e in self.run_events()])
        ran = self.run_events(minutes=160)
        self.assertIn(('before_end_lease', lease['id'], 'DONE'), ran)
        self.assertEqual('ACTIVE', self.show(lease['id'])['status'])

    def test_an_explicit_before_end_keeps_its_distance(self):
        self.add_host('h1')
        # Written once: a minute may turn between a request and its
        # assertion.
        before_end, end, moved, given = (_date(100), _date(200),
                                         _date(180), _date(150))
        lease = self.create(start=60, end=120, before_end_date=before_end)
        self.assertEqual(before_end, self.before_end(lease['id'])['time'][
            :16].replace('T', ' '))
        self.put(lease['id'], {'end_date': end})
        self.assertEqual(moved, self.before_end(lease['id'])['time'][
            :16].replace('T', ' '))
        # Given again, it is where it is given.
        self.put(lease['id'], {'before_end_date': given})
        self.assertEqual(given, self.before_end(lease['id'])['time'][
            :16].replace('T', ' '))

    def test_a_rename_leaves_a_run_before_end_alone(self):
        self.add_host('h1')
        lease = self.create(start='now', end=30)
        self.run_events()
        self.put(lease['id'], {'name': 'renamed'})
        self.assertEqual('DONE', self.before_end(lease['id'])['status'])
