"""GET /v1/os-hosts/calendar and /v1/floatingips/calendar."""

import json
import os
import urllib.parse

from oslo_utils import timeutils
import yaml

from blazar_ext.tests import base
from blazar_ext.tests import fixtures

_at = base.lease_date
NET = 'net-1'
ALICE = fixtures.user_headers(project='proj-a', user='alice')
BOB = fixtures.user_headers(project='proj-b', user='bob')


def rows(body: dict, kind: str) -> list:
    """The calendar's lease or allocation rows as dicts."""
    fields = body['%s_fields' % kind]
    return [dict(zip(fields, row)) for row in body['%ss' % kind]]


class CalendarTestCase(base.LeaseTestCase):

    def setUp(self):
        super().setUp()
        # One "now" for the whole test: dates computed before and after a
        # minute turns must agree.
        timeutils.set_time_override(timeutils.utcnow())
        self.addCleanup(timeutils.clear_time_override)

    def calendar(self, resource='os-hosts', expect=200, headers=None,
                 start=None, end=None, **params):
        query = {'start': start or _at(0), 'end': end or _at(24 * 60)}
        query.update(params)
        token = None if headers else 'admin'
        resp = self.request('GET', '/v1/%s/calendar?%s' % (
            resource, urllib.parse.urlencode(query)), headers=headers,
            token=token)
        self.assertEqual(expect, resp.status, resp.text)
        return resp


class TestHostCalendar(CalendarTestCase):

    def setUp(self):
        super().setUp()
        self.h1 = self.add_host('node-1')
        self.h2 = self.add_host('node-2')
        self.mine = self.create(name='alice-secret-lease', start=_at(60),
                                end=_at(120), headers=ALICE)
        self.theirs = self.create(name='bob-secret-lease', start=_at(90),
                                  end=_at(180), headers=BOB)

    def test_admin_sees_every_lease(self):
        body = self.calendar().json()['calendar']
        self.assertEqual(['node-1', 'node-2'],
                         [r['name'] for r in body['resources']])
        self.assertEqual(
            sorted(['alice-secret-lease', 'bob-secret-lease']),
            sorted(lease['name'] for lease in rows(body, 'lease')))
        by_lease = {a['lease_id']: a for a in rows(body, 'allocation')}
        self.assertEqual({self.mine['id'], self.theirs['id']},
                         set(by_lease))
        mine = by_lease[self.mine['id']]
        self.assertEqual((_at(60), _at(120)), (mine['start'], mine['end']))
        self.assertIn(mine['resource_id'], (self.h1['id'], self.h2['id']))
        lease = [x for x in rows(body, 'lease')
                 if x['id'] == self.mine['id']][0]
        self.assertEqual({'id': self.mine['id'],
                          'name': 'alice-secret-lease', 'status': 'PENDING',
                          'degraded': False, 'project_id': 'proj-a'},
                         lease)

    def test_user_sees_other_projects_leases_as_time_only(self):
        resp = self.calendar(headers=ALICE)
        self.assertNotIn('bob', resp.text)
        self.assertNotIn(self.theirs['id'], resp.text)
        body = resp.json()['calendar']
        self.assertEqual(['alice-secret-lease'],
                         [lease['name'] for lease in rows(body, 'lease')])
        anonymous = [a for a in rows(body, 'allocation')
                     if a['lease_id'] is None]
        self.assertEqual([(_at(90), _at(180))],
                         [(a['start'], a['end']) for a in anonymous])

    def test_window_leaves_out_other_times(self):
        body = self.calendar(start=_at(120), end=_at(150)).json()['calendar']
        self.assertEqual([self.theirs['id']],
                         [a['lease_id'] for a in rows(body, 'allocation')])
        body = self.calendar(start=_at(0), end=_at(60)).json()['calendar']
        self.assertEqual([], rows(body, 'allocation'))
        self.assertEqual(2, len(body['resources']))

    def test_pages_of_hosts_by_name(self):
        self.add_host('node-0')
        every = rows(self.calendar().json()['calendar'], 'allocation')
        self.assertEqual(2, len(every))

        def page_matches(body, names):
            self.assertEqual(3, body['resource_count'])
            self.assertEqual(names, [r['name'] for r in body['resources']])
            # Only the page's hosts' allocations.
            ids = {r['id'] for r in body['resources']}
            self.assertEqual([a for a in every if a['resource_id'] in ids],
                             rows(body, 'allocation'))
        page_matches(self.calendar(limit='2').json()['calendar'],
                     ['node-0', 'node-1'])
        page_matches(self.calendar(limit='2', marker='node-1').json()[
            'calendar'], ['node-2'])
        for bad in ('0', '1001', 'x'):
            resp = self.calendar(limit=bad, expect=400)
            self.assertIn('limit must be an integer from 1 to 1000',
                          resp.json()['error_message'])

    def test_out_of_service_hosts_are_marked(self):
        resp = self.request('PUT', '/v1/os-hosts/%s' % self.h2['id'], {
            'reservable': False, 'reservable_reason': 'PSU replaced'})
        self.assertEqual(200, resp.status, resp.text)
        body = self.calendar(headers=ALICE).json()['calendar']
        self.assertEqual({'node-1': True, 'node-2': False},
                         {r['name']: r['reservable']
                          for r in body['resources']})
        # The operator's note is for those who may see hosts.
        self.assertNotIn('PSU', json.dumps(body))
        body = self.calendar().json()['calendar']
        self.assertEqual(['PSU replaced'],
                         [r['reservable_reason'] for r in body['resources']
                          if not r['reservable']])

    def test_policy_may_close_it(self):
        path = os.path.join(self.useFixture(
            fixtures.fixtures.TempDir()).path, 'policy.yaml')
        with open(path, 'w') as f:
            yaml.safe_dump({'blazar:oshosts:calendar': 'rule:admin'}, f)
        self.conf.set_override('policy_file', path, group='oslo_policy')
        fixtures.policy.reset()
        self.calendar(headers=ALICE, expect=403)
        self.calendar()

    def test_bad_input_is_400(self):
        for params, message in (
                ({'start': 'soon'}, "start 'soon' is not a date"),
                ({'end': _at(0)}, 'end must be at least a minute'),
                ({'hosts': 'all'}, 'unknown query parameter(s): hosts')):
            resp = self.calendar(expect=400, **params)
            self.assertIn(message, resp.json()['error_message'])


class TestFloatingIPCalendar(CalendarTestCase):

    def test_addresses_and_reservations(self):
        for address in ('172.24.4.10', '172.24.4.11'):
            resp = self.request('POST', '/v1/floatingips', {
                'floating_network_id': NET,
                'floating_ip_address': address})
            self.assertEqual(201, resp.status, resp.text)
        lease = self.create(name='fip-lease', headers=ALICE, reservations=[
            {'resource_type': 'virtual:floatingip', 'network_id': NET,
             'amount': 1}])
        body = self.calendar('floatingips', headers=BOB).json()['calendar']
        self.assertEqual(['172.24.4.10', '172.24.4.11'],
                         [r['name'] for r in body['resources']])
        self.assertEqual([], rows(body, 'lease'))
        self.assertEqual([None],
                         [a['lease_id'] for a in rows(body, 'allocation')])
        body = self.calendar('floatingips', headers=ALICE).json()[
            'calendar']
        self.assertEqual([lease['id']],
                         [a['lease_id'] for a in rows(body, 'allocation')])
