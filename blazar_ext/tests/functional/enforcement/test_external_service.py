"""ExternalServiceFilter and the chain over real HTTP on 127.0.0.1."""

import fixtures

from blazar_ext import enforcement
from blazar_ext.enforcement.filters import external_service
from blazar_ext import exceptions
from blazar_ext.tests.functional.enforcement import fixtures as efixtures
from blazar_ext.tests.unit.enforcement import base


ExternalServiceTestBase = base.ExternalServiceTestCase
LOGGER = external_service.__name__


class SampleServiceTest(ExternalServiceTestBase):
    """Decisions of the sample service reach the user as the spec says."""

    def setUp(self):
        super().setUp()
        self.service = self.useFixture(efixtures.SampleServiceFixture({
            'token': 's3cret',
            'default': {'max_hosts': 2, 'max_hours': 48},
            'projects': {'small': {'max_hosts': 1}},
        }))
        self.enforcement = self.chain(
            self.service.url,
            overrides={('enforcement_external', 'token'): 's3cret',
                       ('enforcement_keystone', 'region_name'): 'RegionOne'})

    def test_allow_create_sends_spec_payload(self):
        self.enforcement.check_create({'user_id': 'u1', 'project_id': 'p1'},
                                      efixtures.make_lease(hosts=2))
        [call] = self.service.calls
        self.assertEqual('/v1/check-create', call['path'])
        self.assertEqual('s3cret', call['headers']['X-Auth-Token'])
        self.assertEqual({'user_id': 'u1', 'project_id': 'p1',
                          'auth_url': None, 'region_name': 'RegionOne'},
                         call['body']['context'])
        lease = call['body']['lease']
        self.assertEqual('2030-05-13 00:00', lease['start_date'])
        self.assertEqual('2030-05-14 00:00', lease['end_time'])
        self.assertEqual('2030-05-14 00:00', lease['end_date'])
        self.assertNotIn('id', lease)
        [reservation] = lease['reservations']
        self.assertNotIn('id', reservation)
        self.assertEqual({'id': '1', 'hypervisor_hostname': 'host-1',
                          'extra': {'availability_zone': 'az1'}},
                         reservation['allocations'][0])

    def test_deny_create_with_service_message(self):
        exc = self.assertRaises(
            exceptions.EnforcementRejected, self.enforcement.check_create,
            {'user_id': 'u1', 'project_id': 'small'},
            efixtures.make_lease(hosts=2, project_id='small'))
        self.assertEqual(403, exc.status)
        self.assertEqual('Your project is limited to reserving 1 physical '
                         'host per lease; this lease has 2.', str(exc))
        self.assertEqual('ExternalServiceFilter', exc.filter_name)

    def test_deny_too_long(self):
        exc = self.assertRaises(
            exceptions.EnforcementRejected, self.enforcement.check_create,
            {'user_id': 'u1', 'project_id': 'p1'},
            efixtures.make_lease(hours=72))
        self.assertIn('maximum length of 48 hours', str(exc))

    def test_check_update_sends_both_states(self):
        current = efixtures.make_lease(hosts=1)
        new = efixtures.make_lease(hosts=3)
        exc = self.assertRaises(
            exceptions.EnforcementRejected, self.enforcement.check_update,
            {'user_id': 'other-user', 'project_id': 'p1'}, current, new)
        self.assertIn('limited to reserving 2 physical hosts', str(exc))
        [call] = self.service.calls
        self.assertEqual('/v1/check-update', call['path'])
        self.assertEqual('other-user', call['body']['context']['user_id'])
        self.assertEqual(
            1, len(call['body']['current_lease']['reservations'][0]
                   ['allocations']))
        self.assertEqual(
            3, len(call['body']['lease']['reservations'][0]['allocations']))

    def test_allowed_update(self):
        self.assertIsNone(self.enforcement.check_update(
            {'user_id': 'u1', 'project_id': 'p1'},
            efixtures.make_lease(hosts=1), efixtures.make_lease(hosts=2)))
        # The service was asked, and allowed it.
        [call] = self.service.calls
        self.assertEqual('/v1/check-update', call['path'])
        self.assertEqual(2, len(call['body']['lease']['reservations'][0]
                                ['allocations']))

    def test_on_end_posts_and_uses_lease_owner_without_user(self):
        # The event loop ends leases with an admin context: no user.
        self.enforcement.on_end({'user_id': None, 'project_id': None},
                                efixtures.make_lease(user_id='owner'))
        [call] = self.service.calls
        self.assertEqual('/v1/on-end', call['path'])
        self.assertEqual({'user_id': 'owner', 'project_id': 'p1',
                          'auth_url': None, 'region_name': 'RegionOne'},
                         call['body']['context'])

    def test_wrong_token_denies(self):
        self.conf.set_override('token', 'wrong', group='enforcement_external')
        chain = enforcement.get_chain(self.conf)
        exc = self.assertRaises(
            exceptions.EnforcementRejected, chain.check_create,
            {'user_id': 'u1', 'project_id': 'p1'}, efixtures.make_lease())
        self.assertEqual(external_service.UNAVAILABLE_DENY, str(exc))


class ServiceAnswersTest(ExternalServiceTestBase):
    """How each kind of answer, or no answer, is read."""

    ctx = {'user_id': 'u1', 'project_id': 'p1'}

    def test_204_allows(self):
        service = self.useFixture(efixtures.ScriptedServiceFixture(204))
        self.chain(service.url).check_create(self.ctx, efixtures.make_lease())
        self.assertEqual(['/v1/check-create'],
                         [r['path'] for r in service.requests])

    def test_url_ending_in_v1_is_used_as_is(self):
        # Upstream's external_service_base_endpoint includes the version.
        service = self.useFixture(efixtures.ScriptedServiceFixture(204))
        self.chain(service.url + '/v1/').check_create(
            self.ctx, efixtures.make_lease())
        self.assertEqual(['/v1/check-create'],
                         [r['path'] for r in service.requests])

    def test_403_without_json_message_denies_generic(self):
        service = self.useFixture(efixtures.ScriptedServiceFixture(
            403, raw=b'<html>nope</html>'))
        exc = self.assertRaises(
            exceptions.EnforcementRejected,
            self.chain(service.url).check_create, self.ctx,
            efixtures.make_lease())
        self.assertEqual(external_service.GENERIC_DENY, str(exc))

    def test_500_denies_without_leaking_body(self):
        service = self.useFixture(efixtures.ScriptedServiceFixture(
            500, body={'message': 'db password is hunter2'}))
        exc = self.assertRaises(
            exceptions.EnforcementRejected,
            self.chain(service.url).check_create, self.ctx,
            efixtures.make_lease())
        self.assertNotIn('hunter2', str(exc))
        self.assertEqual(external_service.UNAVAILABLE_DENY, str(exc))

    def test_500_allowed_with_allow_on_error(self):
        log = self.useFixture(fixtures.FakeLogger(name=LOGGER))
        service = self.useFixture(efixtures.ScriptedServiceFixture(500))
        self.assertIsNone(
            self.chain(service.url, allow_on_error=True).check_create(
                self.ctx, efixtures.make_lease()))
        # Allowed after the service was asked and failed, not before.
        self.assertEqual(['/v1/check-create'],
                         [r['path'] for r in service.requests])
        self.assertIn('allowing as [enforcement_external] allow_on_error '
                      'says', log.output)
        self.assertIn('answered 500', log.output)

    def test_403_denies_even_with_allow_on_error(self):
        service = self.useFixture(efixtures.ScriptedServiceFixture(
            403, body={'message': 'No budget left.'}))
        exc = self.assertRaises(
            exceptions.EnforcementRejected,
            self.chain(service.url, allow_on_error=True).check_create,
            self.ctx, efixtures.make_lease())
        self.assertEqual('No budget left.', str(exc))

    def test_service_down_denies(self):
        exc = self.assertRaises(
            exceptions.EnforcementRejected,
            self.chain(efixtures.closed_port_url()).check_create, self.ctx,
            efixtures.make_lease())
        self.assertEqual(external_service.UNAVAILABLE_DENY, str(exc))

    def test_service_down_allowed_with_allow_on_error(self):
        log = self.useFixture(fixtures.FakeLogger(name=LOGGER))
        url = efixtures.closed_port_url()
        self.assertIsNone(
            self.chain(url, allow_on_error=True).check_create(
                self.ctx, efixtures.make_lease()))
        # Allowed because the call to the service failed.
        self.assertIn('allowing as [enforcement_external] allow_on_error '
                      'says: %s/v1/check-create: ' % url, log.output)

    def test_slow_service_denied_after_timeout(self):
        service = self.useFixture(efixtures.ScriptedServiceFixture(
            204, hold=True))
        exc = self.assertRaises(
            exceptions.EnforcementRejected,
            self.chain(service.url, timeout=0.2).check_create, self.ctx,
            efixtures.make_lease())
        self.assertEqual(external_service.UNAVAILABLE_DENY, str(exc))
        self.assertEqual(1, len(service.wait_for_requests(1)))

    def test_slow_service_allowed_with_allow_on_error(self):
        service = self.useFixture(efixtures.ScriptedServiceFixture(
            204, hold=True))
        self.chain(service.url, timeout=0.2,
                   allow_on_error=True).check_update(
            self.ctx, efixtures.make_lease(), efixtures.make_lease())
        self.assertEqual(['/v1/check-update'],
                         [r['path'] for r in service.wait_for_requests(1)])

    def test_on_end_failure_does_not_raise(self):
        for url in (efixtures.closed_port_url(),):
            self.chain(url).on_end(self.ctx, efixtures.make_lease())
        service = self.useFixture(efixtures.ScriptedServiceFixture(500))
        self.chain(service.url).on_end(self.ctx, efixtures.make_lease())
        self.assertEqual(['/v1/on-end'],
                         [r['path'] for r in service.requests])

    def test_connection_is_reused(self):
        service = self.useFixture(efixtures.ScriptedServiceFixture(204))
        chain = self.chain(service.url)
        for _ in range(3):
            chain.check_create(self.ctx, efixtures.make_lease())
        self.assertEqual(3, len(service.client_ports))
        self.assertEqual(1, len(set(service.client_ports)))

    def test_no_endpoint_allows_without_calling(self):
        # A recording service as every HTTP request's proxy sees any call
        # the filter would make, whatever the host.
        proxy = self.useFixture(efixtures.ScriptedServiceFixture(403))
        for name in ('http_proxy', 'HTTP_PROXY', 'https_proxy',
                     'HTTPS_PROXY'):
            self.useFixture(fixtures.EnvironmentVariable(name, proxy.url))
        for name in ('no_proxy', 'NO_PROXY'):
            self.useFixture(fixtures.EnvironmentVariable(name))
        self.conf.set_override('enabled_filters', ['ExternalServiceFilter'],
                               group='enforcement')
        self.assertIsNone(enforcement.get_chain(self.conf).check_create(
            self.ctx, efixtures.make_lease()))
        self.assertEqual([], proxy.requests)
        # With an endpoint, the same chain's call reaches the proxy.
        self.assertRaises(
            exceptions.EnforcementRejected,
            self.chain('http://enforcement.invalid').check_create,
            self.ctx, efixtures.make_lease())
        self.assertEqual(['http://enforcement.invalid/v1/check-create'],
                         [r['path'] for r in proxy.requests])
