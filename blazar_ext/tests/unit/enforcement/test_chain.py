"""The chain runner: exemptions, error handling, on_end."""

import fixtures

from blazar_ext import enforcement
from blazar_ext.enforcement import base as filter_base
from blazar_ext.enforcement import keystone
from blazar_ext import exceptions
from blazar_ext.tests.unit.enforcement import base


class Recorder(filter_base.BaseFilter):
    def __init__(self, conf, calls, fail=None):
        super().__init__(conf)
        self.calls = calls
        self.fail = fail

    def _record(self, method, *args):
        self.calls.append((self.name, method, args))
        if self.fail is not None:
            raise self.fail

    def check_create(self, context, lease):
        self._record('check_create', context, lease)

    def check_update(self, context, current_lease, lease):
        self._record('check_update', context, current_lease, lease)

    def on_end(self, context, lease):
        self._record('on_end', context, lease)


class Other(Recorder):
    pass


LEASE = {'id': 'l1', 'user_id': 'owner', 'project_id': 'p1',
         'start_date': '2030-01-01 00:00', 'end_date': '2030-01-02 00:00',
         'reservations': []}


class ChainTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.calls = []

    def chain(self, *filters):
        return enforcement.UsageEnforcement(list(filters), self.conf)

    def test_filters_get_payloads(self):
        chain = self.chain(Recorder(self.conf, self.calls))
        chain.check_create({'user_id': 'u', 'project_id': 'p1'}, LEASE)
        [(name, method, (ctx, lease))] = self.calls
        self.assertEqual('p1', ctx['project_id'])
        self.assertEqual({'start_date': '2030-01-01 00:00',
                          'end_date': '2030-01-02 00:00',
                          'end_time': '2030-01-02 00:00',
                          'reservations': []}, lease)

    def test_exempt_project_skips_every_filter(self):
        self.conf.set_override('exempted_projects', ['p1'],
                               group='enforcement')
        chain = self.chain(
            Recorder(self.conf, self.calls,
                     fail=exceptions.EnforcementRejected('no')),
            Other(self.conf, self.calls))
        chain.check_create({'user_id': 'u', 'project_id': 'p1'}, LEASE)
        chain.check_update({'user_id': 'u'}, LEASE, LEASE)
        chain.on_end({}, LEASE)
        self.assertEqual([], self.calls)
        # Another project is still checked.
        self.assertRaises(exceptions.EnforcementRejected, chain.check_create,
                          {'project_id': 'p2'}, dict(LEASE, project_id='p2'))

    def test_name_without_keystone_is_ignored(self):
        self.conf.set_override('exempted_projects', ['p1@Default', 'p3'],
                               group='enforcement')
        logger = self.useFixture(fixtures.FakeLogger(
            name='blazar_ext.enforcement.keystone'))
        chain = self.chain(Recorder(self.conf, self.calls))
        chain.check_create({}, LEASE)
        self.assertEqual(1, len(self.calls))
        self.assertIn('Ignoring exempted project p1@Default', logger.output)
        chain.check_create({}, dict(LEASE, project_id='p3'))
        self.assertEqual(1, len(self.calls))

    def test_generic_forbidden_becomes_rejection(self):
        chain = self.chain(Recorder(self.conf, self.calls,
                                    fail=exceptions.Forbidden(reason='x')))
        exc = self.assertRaises(exceptions.EnforcementRejected,
                                chain.check_create, {}, LEASE)
        self.assertEqual('Forbidden: x', str(exc))
        self.assertEqual('Recorder', exc.filter_name)

    def test_broken_filter_denies(self):
        chain = self.chain(Recorder(self.conf, self.calls,
                                    fail=KeyError('bug')))
        exc = self.assertRaises(exceptions.EnforcementRejected,
                                chain.check_update, {}, LEASE, LEASE)
        self.assertIn('could not check the request', str(exc))

    def test_on_end_failure_is_logged_and_others_still_told(self):
        logger = self.useFixture(fixtures.FakeLogger(
            name='blazar_ext.enforcement'))
        chain = self.chain(
            Recorder(self.conf, self.calls, fail=RuntimeError('down')),
            Other(self.conf, self.calls))
        chain.on_end({}, LEASE)
        self.assertEqual(['Recorder', 'Other'],
                         [c[0] for c in self.calls])
        self.assertIn('Usage enforcement filter Recorder failed on the end '
                      'of lease l1', logger.output)
        # The event loop's admin context has no user: the owner is sent.
        self.assertEqual('owner', self.calls[1][2][0]['user_id'])

    def test_update_order_and_arguments(self):
        chain = self.chain(Other(self.conf, self.calls),
                           Recorder(self.conf, self.calls))
        chain.check_update({'user_id': 'editor'}, LEASE,
                           dict(LEASE, name='renamed'))
        self.assertEqual(['Other', 'Recorder'], [c[0] for c in self.calls])
        ctx, current, new = self.calls[0][2]
        self.assertEqual('editor', ctx['user_id'])
        self.assertNotIn('name', current)
        self.assertEqual('renamed', new['name'])


class InactiveFilterTest(base.TestCase):

    def test_inactive_filters_are_skipped(self):
        calls = []

        class Idle(Recorder):
            active = False

        chain = enforcement.UsageEnforcement(
            [Idle(self.conf, calls), Other(self.conf, calls)], self.conf)
        chain.check_create({}, LEASE)
        chain.check_update({}, LEASE, LEASE)
        chain.on_end({}, LEASE)
        self.assertEqual(['Other'] * 3, [c[0] for c in calls])

    def test_default_filters_idle_until_configured(self):
        chain = enforcement.get_chain(self.conf)
        self.assertEqual([], chain._active())
        self.conf.set_override('reservation_max_length', 60,
                               group='enforcement')
        self.assertEqual(['MaximumReservationLengthFilter'],
                         [f.name for f in chain._active()])


class ResolverWithoutSessionTest(base.TestCase):

    def test_ids_only(self):
        resolver = keystone.ProjectResolver([' a ', '', 'b@D'], None)
        self.assertEqual({'a'}, resolver.project_ids())
