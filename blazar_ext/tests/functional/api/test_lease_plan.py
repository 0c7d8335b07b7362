"""POST /v1/leases/plan, flexible lease creates and extension advice
through the whole service."""

import datetime
import random
from unittest import mock

from oslo_utils import timeutils
import sqlalchemy as sa
from sqlalchemy import orm

from blazar_ext.db.api import host_filter
from blazar_ext.db.api import slot_search
from blazar_ext.db.models import lease as lease_models
from blazar_ext.query import slot_plan
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import backends

FMT = base.FMT
HOUR = datetime.timedelta(hours=1)
NET = 'net-1'


def host_reservation(**values) -> dict:
    return base.host_reservation(**values)


def fip_reservation(**values) -> dict:
    spec = {'resource_type': 'virtual:floatingip', 'network_id': NET,
            'amount': 1}
    spec.update(values)
    return spec


class PlanTestCase(base.HostProviderTestCase):

    def setUp(self):
        super().setUp()
        now = timeutils.utcnow().replace(minute=0, second=0, microsecond=0)
        timeutils.set_time_override(now)
        self.addCleanup(timeutils.clear_time_override)
        # Hour 0 of the tests: an hour from now.
        self.t0 = now + HOUR

    def at(self, hours: float) -> str:
        return (self.t0 + hours * HOUR).strftime(FMT)

    def add_fip(self, address, network=NET):
        resp = self.request('POST', '/v1/floatingips', {
            'floating_network_id': network, 'floating_ip_address': address})
        self.assertEqual(201, resp.status, resp.text)
        return resp.json()['floatingip']

    def set_public(self, name: str) -> None:
        resp = self.request('PATCH', '/v1/os-hosts/properties/%s' % name,
                            {'private': False})
        self.assertEqual(200, resp.status, resp.text)

    def plan(self, reservations, expect=200, headers=None, **values):
        body = {'reservations': reservations, 'duration': 3600,
                'not_before': self.at(0), 'not_after': self.at(24)}
        if 'min_duration' in values:
            del body['duration']
        body.update(values)
        resp = self.request('POST', '/v1/leases/plan', body,
                            headers=headers)
        self.assertEqual(expect, resp.status, resp.text)
        return resp.json().get('options', resp.json())

    def lease_count(self) -> int:
        return len(self.request('GET', '/v1/leases').json()['leases'])


class TestLeasePlan(PlanTestCase):

    def test_earliest_across_hosts_and_floatingips(self):
        self.add_host('h1')
        self.add_host('h2')
        self.add_fip('172.24.4.10')
        self.create('a', start=self.at(0), end=self.at(2),
                    reservations=[host_reservation()])
        self.create('b', start=self.at(1), end=self.at(4),
                    reservations=[fip_reservation()])
        options = self.plan([host_reservation(min=2, max=2),
                             fip_reservation()], limit=2)
        # Nothing changes after hour 4: one option.
        self.assertEqual([{'start_date': self.at(4), 'end_date': self.at(5),
                           'duration': 3600}], options)
        # Every option is one the lease create takes.
        self.create('c', start=options[0]['start_date'],
                    end=options[0]['end_date'],
                    reservations=[host_reservation(min=2, max=2),
                                  fip_reservation()])
        self.assertEqual(3, self.lease_count())

    def test_longest_says_how_far_it_stretches(self):
        self.add_host('h1')
        self.create('a', start=self.at(3), end=self.at(5))
        self.create('b', start=self.at(8), end=self.at(20))
        options = self.plan([host_reservation()], prefer='longest',
                            min_duration=3600, max_duration=4 * 3600)
        # Longest first; equal lengths, earliest first.
        self.assertEqual(
            [(self.at(20), self.at(24)), (self.at(0), self.at(3)),
             (self.at(5), self.at(8))],
            [(o['start_date'], o['latest_end_date']) for o in options])
        # end_date: as long as max_duration allows.
        self.assertEqual([self.at(24), self.at(3), self.at(8)],
                         [o['end_date'] for o in options])

    def test_earliest_with_max_duration_stretches_to_it(self):
        self.add_host('h1')
        self.create('a', start=self.at(3), end=self.at(5))
        options = self.plan([host_reservation()], min_duration=3600,
                            max_duration=10 * 3600, limit=1)
        self.assertEqual([(self.at(0), self.at(3))],
                         [(o['start_date'], o['end_date'])
                          for o in options])

    def test_host_filter_compiled_once_per_search(self):
        # The pool's read and every check of an option share one
        # compiled filter: its capabilities and traits are looked up once.
        self.add_host('h1')
        self.create('a', start=self.at(3), end=self.at(5))
        self.create('b', start=self.at(8), end=self.at(20))
        with mock.patch.object(host_filter, 'build',
                               wraps=host_filter.build) as build:
            options = self.plan([host_reservation()], prefer='longest',
                                min_duration=3600, max_duration=4 * 3600,
                                with_resources=True)
        self.assertEqual(3, len(options))
        self.assertEqual(1, build.call_count)

    def test_instances_mixed_with_hosts_and_floatingips(self):
        # Two hosts of 8 VCPUs; instances take capacity from the one the
        # host reservation leaves.
        for name in ('h1', 'h2'):
            self.add_host(name, vcpus=8, memory_mb=16384, local_gb=100)
        self.add_fip('172.24.4.10')
        instance = {'resource_type': 'virtual:instance', 'amount': 2,
                    'vcpus': 4, 'memory_mb': 4096, 'disk_gb': 20,
                    'affinity': None, 'resource_properties': ''}
        self.create('a', start=self.at(0), end=self.at(3),
                    reservations=[dict(instance, amount=1)])
        self.create('b', start=self.at(0), end=self.at(5),
                    reservations=[host_reservation()])
        options = self.plan([instance, fip_reservation()], limit=2)
        # The instance lease ends at hour 3: two slots of 4 VCPUs free.
        self.assertEqual([(self.at(3), self.at(4))],
                         [(o['start_date'], o['end_date'])
                          for o in options][:1])
        # A host and instances draw on the same hosts: together they fit
        # only once lease b ends (each alone fits at hour 3).
        options = self.plan([instance, host_reservation()], limit=1)
        self.assertEqual(self.at(5), options[0]['start_date'])
        self.create('c', start=options[0]['start_date'],
                    end=options[0]['end_date'],
                    reservations=[instance, host_reservation()])

    def test_other_methods_are_not_500(self):
        for method, path in (('GET', '/v1/leases/plan'),
                             ('PUT', '/v1/leases/plan'),
                             ('DELETE', '/v1/leases/plan'),
                             ('POST', '/v1/leases/x/extension'),
                             ('GET', '/v1/leases/x/extension')):
            resp = self.request(method, path)
            self.assertIn(resp.status, (404, 405), (method, path,
                                                    resp.text))

    def test_nothing_fits(self):
        self.add_host('h1')
        self.assertEqual([], self.plan([host_reservation(min=2, max=2)]))

    def test_resources_for_admins_only(self):
        h1 = self.add_host('h1')
        options = self.plan([host_reservation()], limit=1,
                            with_resources=True)
        self.assertEqual([[h1['id']]], options[0]['resources'])
        body = self.plan([host_reservation()], expect=403,
                         headers=fixtures.user_headers(),
                         with_resources=True)
        self.assertIn('plan:resources', body['error_message'])
        options = self.plan([host_reservation()], limit=1,
                            headers=fixtures.user_headers())
        self.assertNotIn('resources', options[0])

    def test_private_property_is_the_same_400_as_unknown(self):
        self.add_host('h1', secret_rack='r1')
        user = fixtures.user_headers()
        private = self.plan([host_reservation(
            resource_properties='["==", "$secret_rack", "r1"]')],
            expect=400, headers=user)
        unknown = self.plan([host_reservation(
            resource_properties='["==", "$nowhere", "r1"]')],
            expect=400, headers=user)
        self.assertEqual(
            unknown['error_message'].replace('nowhere', 'X'),
            private['error_message'].replace('secret_rack', 'X'))
        self.assertNotIn('r1', private['error_message'])
        self.assertEqual(1, len(self.plan([host_reservation(
            resource_properties='["==", "$secret_rack", "r1"]')],
            limit=1)))

    def test_users_see_dates_not_leases(self):
        self.add_host('h1')
        self.create('other', start=self.at(0), end=self.at(2),
                    headers=fixtures.user_headers(project='other'))
        options = self.plan([host_reservation()], limit=1,
                            headers=fixtures.user_headers())
        self.assertEqual([{'start_date': self.at(2),
                           'end_date': self.at(3), 'duration': 3600}],
                         options)

    def test_bad_input_is_400_and_creates_nothing(self):
        self.add_host('h1')
        self.conf.set_override('max_window_days', 30, group='plan')
        cases = [
            ({'duration': 0}, 'duration must be a positive'),
            ({'duration': -5}, 'duration must be a positive'),
            ({'duration': 31 * 86400}, 'duration may be at most'),
            # Past what a timedelta holds (schemathesis found a 500).
            ({'duration': 10 ** 15}, 'duration may be at most'),
            ({'min_duration': 10 ** 15, 'max_duration': 10 ** 16},
             'min_duration may be at most'),
            ({'not_after': self.at(-1)}, 'must be later than not_before'),
            ({'not_after': self.at(24 * 40)}, 'at most 30 days'),
            ({'reservations': []}, 'at least one reservation'),
            ({'reservations': [{'resource_type': 'nowhere:thing'}]},
             "resource_type 'nowhere:thing' is not enabled"),
            ({'not_after': 'soon'}, 'not_after'),
            ({'prefer': 'cheapest'}, 'prefer must be one of'),
            ({'limit': 0}, 'limit must be'),
            ({'start_date': self.at(1)}, 'start_date'),
            ({'duration': 3600 * 48}, 'shorter than the duration'),
            ({'min_duration': 7200, 'max_duration': 3600},
             'max_duration must not be less'),
        ]
        for values, words in cases:
            body = {'reservations': [host_reservation()], 'duration': 3600,
                    'not_before': self.at(0), 'not_after': self.at(24)}
            if 'min_duration' in values:
                del body['duration']
            body.update(values)
            resp = self.request('POST', '/v1/leases/plan', body)
            self.assertEqual(400, resp.status, (values, resp.text))
            self.assertIn(words, resp.json()['error_message'], values)
            resp = self.request('POST', '/v1/leases',
                                dict(body, name='flex'))
            self.assertEqual(400, resp.status, (values, resp.text))
        resp = self.request('POST', '/v1/leases/plan', {})
        self.assertEqual(400, resp.status, resp.text)
        self.assertEqual(0, self.lease_count())

    def test_unknown_trait_is_named_as_a_lease_create_names_it(self):
        # The search compiles its host filter as the host plugin does
        # (once, for the pool and the checks): same 400, same words.
        self.add_host('h1')
        body = self.plan([host_reservation(traits=['CUSTOM_NOPE'])],
                         expect=400)
        self.assertIn('physical:host reservation: traits: No such '
                      'trait(s): CUSTOM_NOPE', body['error_message'])


class TestFlexibleCreate(PlanTestCase):

    def flexible(self, name, expect=201, **values):
        body = {'name': name, 'reservations': [host_reservation()],
                'duration': 3600, 'not_before': self.at(0),
                'not_after': self.at(6)}
        body.update(values)
        resp = self.request('POST', '/v1/leases', body)
        self.assertEqual(expect, resp.status, resp.text)
        return resp.json().get('lease', resp.json())

    def test_books_the_first_option_then_the_next(self):
        self.add_host('h1')
        self.create('a', start=self.at(0), end=self.at(1))
        first = self.flexible('f1')
        self.assertEqual((self.at(1), self.at(2)),
                         (first['start_date'][:16].replace('T', ' '),
                          first['end_date'][:16].replace('T', ' ')))
        second = self.flexible('f2')
        self.assertEqual(self.at(2),
                         second['start_date'][:16].replace('T', ' '))
        for _ in range(3):
            self.flexible('more')
        body = self.flexible('late', expect=409)
        self.assertIn('no slot of 3600 seconds', body['error_message'])
        self.assertEqual(6, self.lease_count())

    def test_a_lost_option_gives_way_to_the_next(self):
        from blazar_ext.manager import plan
        self.add_host('h1')
        real = plan.search

        def stale(context, plugins, request, with_resources=False):
            # Options as a search before a concurrent booking saw them.
            options = real(context, plugins, request, with_resources)
            if request.not_before == self.t0:
                self.create('racer', start=self.at(0), end=self.at(1))
            return options

        self.useFixture(fixtures.fixtures.MockPatchObject(
            plan, 'search', stale))
        lease = self.flexible('f1')
        self.assertEqual(self.at(1),
                         lease['start_date'][:16].replace('T', ' '))


class TestExtension(PlanTestCase):

    def extension(self, lease_id, expect=200, headers=None):
        resp = self.request('GET', '/v1/leases/%s/extension' % lease_id,
                            headers=headers)
        self.assertEqual(expect, resp.status, resp.text)
        return resp.json().get('extension', resp.json())

    def test_held_and_moving(self):
        self.conf.set_override('max_window_days', 2, group='plan')
        self.add_host('h1')
        self.add_host('h2')
        lease = self.create('a', start=self.at(0), end=self.at(2))
        held = self.allocated_hosts(lease['id'])
        # The next lease on the held host begins at hour 5.
        self.create('b', start=self.at(5), end=self.at(6),
                    reservations=[host_reservation(
                        hypervisor_properties='["==", "$hypervisor_'
                                              'hostname", "%s"]'
                        % self._name_of(held[0]))])
        found = self.extension(lease['id'])
        self.assertEqual(self.at(5), found['latest_end_date'])
        [res] = found['reservations']
        self.assertEqual(self.at(5), res['latest_end_date'])
        self.assertTrue(res['moving_helps'])
        self.assertTrue(found['moving_helps'])
        self.assertEqual('horizon', found['limited_by'])

    def _name_of(self, host_id):
        return self.request('GET', '/v1/os-hosts/%s' % host_id).json()[
            'host']['hypervisor_hostname']

    def test_enforcement_is_asked(self):
        self.conf.set_override('enabled_filters',
                               ['MaximumReservationLengthFilter'],
                               group='enforcement')
        self.conf.set_override('reservation_max_length', 4 * 3600,
                               group='enforcement')
        from blazar_ext.manager import leases as lease_manager
        self.manager.service.endpoint.leases.enforcement = (
            lease_manager.load_enforcement())
        self.add_host('h1')
        lease = self.create('a', start=self.at(0), end=self.at(2))
        found = self.extension(lease['id'])
        self.assertEqual(self.at(4), found['latest_end_date'])
        self.assertEqual('enforcement', found['limited_by'])

    def test_other_projects_cannot_ask(self):
        self.add_host('h1')
        lease = self.create('a', start=self.at(0), end=self.at(2))
        self.extension(lease['id'], expect=403,
                       headers=fixtures.user_headers(project='other'))


class TestPlanAgainstBruteForce(PlanTestCase):
    """Random hosts (private and public capabilities, some out of
    service), floating IPs and leases on whole hours; random requests of
    mixed types; the search's options against every hour checked by
    hand."""

    HOURS = 36
    REQUESTS = 200

    def test_random(self):
        rng = random.Random(int(self.id().__hash__()) & 0xffff)
        hosts = []
        for i in range(8):
            hosts.append(self.add_host('h%d' % i, rack='r%d' % (i % 3),
                                       secret='s%d' % (i % 2)))
        self.set_public('rack')
        for i in range(5):
            self.add_fip('172.24.4.%d' % (10 + i))
        for _ in range(30):
            start = rng.randrange(0, self.HOURS - 1)
            end = start + rng.randrange(1, 8)
            if rng.random() < 0.6:
                res = host_reservation(min=1, max=rng.randrange(1, 3))
            else:
                res = fip_reservation(amount=rng.randrange(1, 3))
            resp = self.request('POST', '/v1/leases', {
                'name': 'x', 'start_date': self.at(start),
                'end_date': self.at(end), 'reservations': [res]})
            self.assertIn(resp.status, (201, 409, 400), resp.text)
        for host in hosts[:2]:
            resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'],
                                {'reservable': False})
            self.assertEqual(200, resp.status, resp.text)
        world = self._world()
        user = fixtures.user_headers()
        for _ in range(self.REQUESTS):
            reservations = []
            if rng.random() < 0.8:
                query = rng.choice(['', '["==", "$rack", "r1"]',
                                    '["==", "$secret", "s0"]',
                                    '["!=", "$rack", "r0"]'])
                count = rng.randrange(1, 4)
                reservations.append(host_reservation(
                    min=count, max=count, resource_properties=query))
            if not reservations or rng.random() < 0.5:
                reservations.append(fip_reservation(
                    amount=rng.randrange(1, 4)))
            duration = rng.randrange(1, 6)
            nb = rng.randrange(0, self.HOURS - duration)
            na = rng.randrange(nb + duration, self.HOURS + 1)
            as_user = rng.random() < 0.4
            private = any('secret' in r.get('resource_properties', '')
                          for r in reservations)
            limit = rng.randrange(1, 6)
            if as_user and private:
                self.plan(reservations, expect=400, headers=user,
                          duration=duration * 3600, not_before=self.at(nb),
                          not_after=self.at(na))
                continue
            prefer = rng.choice(['earliest', 'earliest', 'longest'])
            options = self.plan(
                reservations, headers=user if as_user else None,
                duration=duration * 3600, not_before=self.at(nb),
                not_after=self.at(na), limit=limit, prefer=prefer)
            if prefer == 'longest':
                self._check_longest(world, reservations, duration, nb, na,
                                    options)
            else:
                self._check(world, reservations, duration, nb, na, limit,
                            options)

    def _world(self):
        with self.db.engine.connect() as conn:
            hosts = {row[0]: {'reservable': row[1]} for row in conn.execute(
                sa.text('SELECT id, reservable FROM computehosts'))}
            for host_id, name, value in conn.execute(sa.text(
                    'SELECT v.computehost_id, c.capability_name, '
                    'v.capability_value FROM computehost_extra_capabilities'
                    ' v JOIN extra_capabilities c ON c.id = '
                    'v.capability_id')):
                hosts[host_id][name] = value
            host_busy = [tuple(r) for r in conn.execute(sa.text(
                'SELECT compute_host_id, start_date, end_date FROM '
                'computehost_allocations'))]
            fips = {row[0]: row[1] for row in conn.execute(sa.text(
                'SELECT id, floating_network_id FROM floatingips'))}
            fip_busy = [tuple(r) for r in conn.execute(sa.text(
                'SELECT floatingip_id, start_date, end_date FROM '
                'floatingip_allocations'))]
        return hosts, host_busy, fips, fip_busy

    def _fits(self, world, reservations, start, end) -> bool:
        hosts, host_busy, fips, fip_busy = world

        def parse(value):
            return (value if isinstance(value, datetime.datetime)
                    else datetime.datetime.fromisoformat(str(value)))

        def free(resource_id, busy):
            return not any(r == resource_id and parse(a) < end
                           and parse(b) > start for r, a, b in busy)

        for res in reservations:
            if res['resource_type'] == 'physical:host':
                query = res['resource_properties']
                matching = [h for h, caps in hosts.items()
                            if caps['reservable'] and self._match(
                                query, caps) and free(h, host_busy)]
                if len(matching) < res['min']:
                    return False
            else:
                matching = [f for f, net in fips.items()
                            if net == NET and free(f, fip_busy)]
                if len(matching) < res['amount']:
                    return False
        return True

    @staticmethod
    def _match(query, caps) -> bool:
        if not query:
            return True
        import json
        op, name, value = json.loads(query)
        have = caps.get(name[1:])
        return have == value if op == '==' else have != value

    def _check(self, world, reservations, duration, nb, na, limit,
               options):
        feasible = [h for h in range(nb, na - duration + 1)
                    if self._fits(world, reservations, self.t0 + h * HOUR,
                                  self.t0 + (h + duration) * HOUR)]
        runs = [h for h in feasible if h == nb or h - 1 not in feasible]
        got = [(datetime.datetime.strptime(o['start_date'], FMT) - self.t0)
               // HOUR for o in options]
        context = (reservations, duration, nb, na, limit, got, feasible)
        self.assertLessEqual(len(got), limit, context)
        self.assertEqual(sorted(got), got, context)
        self.assertTrue(set(got) <= set(feasible), context)
        if len(got) < limit:
            self.assertEqual(set(runs), set(runs) & set(got), context)
        else:
            self.assertEqual({h for h in runs if h <= got[-1]},
                             {h for h in runs if h <= got[-1]} & set(got),
                             context)
        for option in options:
            self.assertEqual(duration * 3600, option['duration'])

    def _latest(self, world, reservations, start, duration, na):
        """The latest hour a lease from ``start`` could end, or None."""
        latest = None
        for end in range(start + duration, na + 1):
            if not self._fits(world, reservations, self.t0 + start * HOUR,
                              self.t0 + end * HOUR):
                break
            latest = end
        return latest

    def _check_longest(self, world, reservations, duration, nb, na,
                       options):
        lengths = {}
        for h in range(nb, na - duration + 1):
            latest = self._latest(world, reservations, h, duration, na)
            if latest is not None:
                lengths[h] = latest - h
        context = (reservations, duration, nb, na, options, lengths)
        if not lengths:
            self.assertEqual([], options, context)
            return
        self.assertTrue(options, context)

        def hour(text):
            return (datetime.datetime.strptime(text, FMT) - self.t0) // HOUR

        self.assertEqual(max(lengths.values()),
                         hour(options[0]['latest_end_date'])
                         - hour(options[0]['start_date']), context)
        for option in options:
            start = hour(option['start_date'])
            self.assertEqual(lengths.get(start),
                             hour(option['latest_end_date']) - start,
                             context)
            self.assertEqual(duration * 3600, option['duration'], context)


class TestBusyDatesExact(PlanTestCase):
    """The search reads host allocation dates as integer microseconds,
    computed by each database: exact, seconds and fractions included."""

    def test_sub_second_dates(self):
        host = self.add_host('h1')
        self.create('a', start=self.at(1), end=self.at(2))
        start = self.t0 + datetime.timedelta(hours=3, seconds=7,
                                             microseconds=123456)
        end = self.t0 + datetime.timedelta(hours=4, seconds=59,
                                           microseconds=999999)
        with self.db.engine.begin() as conn:
            conn.execute(sa.text(
                'UPDATE computehost_allocations SET start_date = :s, '
                'end_date = :e'), {'s': start, 'e': end})
        with self.db.engine.connect() as conn:
            # As stored: MySQL's DATETIME keeps whole seconds.
            stored = conn.execute(sa.text(
                'SELECT start_date, end_date FROM computehost_allocations')
            ).one()
            stored = [value if isinstance(value, datetime.datetime)
                      else datetime.datetime.fromisoformat(value)
                      for value in stored]
            rows = slot_search.host_busy_rows(
                orm.Session(bind=conn), sa.true(), self.t0,
                self.t0 + 24 * HOUR, datetime.timedelta(0))
        self.assertIn(stored[1], (end, end.replace(microsecond=0)))
        self.assertEqual([(host['id'], slot_plan.microseconds(stored[0]),
                           slot_plan.microseconds(stored[1]))],
                         [tuple(row) for row in rows])

    def _assert_stored_microseconds(self, expected_rows: int) -> None:
        table = lease_models.ComputeHostAllocation.__table__
        with self.db.engine.connect() as conn:
            rows = conn.execute(sa.select(
                table.c.start_date, table.c.end_date, table.c.start_us,
                table.c.end_us)).all()
        self.assertEqual(expected_rows, len(rows))
        for start, end, start_us, end_us in rows:
            self.assertEqual((slot_plan.microseconds(start),
                              slot_plan.microseconds(end)),
                             (start_us, end_us), (start, end))

    def test_stored_microseconds_follow_every_write(self):
        # Revision 0030's start_us and end_us are the database's: a
        # lease created, moved, extended through the API, created
        # flexibly, deleted, and a date written by hand all keep them.
        for name in ('h1', 'h2'):
            self.add_host(name)
        lease = self.create('a', start=self.at(1), end=self.at(2))
        self.create('b', start=self.at(3), end=self.at(5))
        self._assert_stored_microseconds(2)
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'start_date': self.at(6), 'end_date': self.at(9)})
        self.assertEqual(200, resp.status, resp.text)
        resp = self.request('PUT', '/v1/leases/%s' % lease['id'], {
            'prolong_for': '1h'})
        self.assertEqual(200, resp.status, resp.text)
        self._assert_stored_microseconds(2)
        resp = self.request('POST', '/v1/leases', {
            'name': 'flex', 'reservations': [host_reservation()],
            'duration': 3600, 'not_before': self.at(0),
            'not_after': self.at(24)})
        self.assertEqual(201, resp.status, resp.text)
        self._assert_stored_microseconds(3)
        odd = self.t0 + datetime.timedelta(hours=30, seconds=7,
                                           microseconds=5)
        with self.db.engine.begin() as conn:
            conn.execute(sa.text(
                'UPDATE computehost_allocations SET end_date = :e'),
                {'e': odd})
        self._assert_stored_microseconds(3)
        resp = self.request('DELETE', '/v1/leases/%s' % lease['id'])
        self.assertEqual(204, resp.status, resp.text)
        self._assert_stored_microseconds(2)

    def test_epoch_microseconds_across_dates(self):
        # Before and after the epoch, leap days, the last microsecond
        # of a day and of a year, and random dates: the database's
        # integer is the one Python computes.
        rng = random.Random(29)
        dates = [datetime.datetime(1969, 12, 31, 23, 59, 59, 999999),
                 datetime.datetime(1970, 1, 1),
                 datetime.datetime(2000, 2, 29, 12, 0, 0, 500000),
                 datetime.datetime(2038, 1, 19, 3, 14, 8, 1),
                 datetime.datetime(2099, 12, 31, 23, 59, 59, 999999)]
        dates += [datetime.datetime(1950, 1, 1) + datetime.timedelta(
            microseconds=rng.randrange(150 * 365 * 86400 * 10 ** 6))
            for _ in range(200)]
        # A bare parameter (not stored, so MySQL keeps its fraction), as
        # a column reads: SQLite's CAST AS DATETIME would make a number.
        value = sa.bindparam('d', type_=sa.DateTime())
        query = sa.select(slot_search.EpochMicroseconds(value))
        with self.db.engine.connect() as conn:
            for date in dates:
                got = conn.execute(query, {'d': date}).scalar_one()
                self.assertEqual(slot_plan.microseconds(date), got, date)


(TestPlanAgainstBruteForceMySQL,
 TestPlanAgainstBruteForcePostgreSQL) = backends.on_each_backend(
    TestPlanAgainstBruteForce)
(TestBusyDatesExactMySQL,
 TestBusyDatesExactPostgreSQL) = backends.on_each_backend(TestBusyDatesExact)
