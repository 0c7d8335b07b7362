"""Resource properties discovery through the whole service.

Covers /v1/{resource_type}/properties (the spec's routes) and
/v1/os-hosts/properties (python-blazarclient's), private capabilities in
every response, and the policy defaults and their override.
"""

import os

import yaml

from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import cli

HOST_PROPS = '/v1/physical:host/properties'
OSHOSTS_PROPS = '/v1/os-hosts/properties'


class PropertiesTestCase(base.APITestCase):

    def _host(self, name, **capabilities):
        resp = self.request('POST', '/v1/os-hosts',
                            dict(capabilities, name=name))
        self.assertEqual(201, resp.status, resp.text)
        return resp.json()['host']

    def _set_private(self, name, private):
        resp = self.request('PATCH', '%s/%s' % (HOST_PROPS, name),
                            {'private': private})
        self.assertEqual(204, resp.status, resp.text)

    def _user(self, method, path, body=None):
        return self.request(method, path, body, token=None,
                            headers=fixtures.user_headers())

    def _policy(self, rules: dict) -> None:
        """Load ``rules`` as policy.yaml for the rest of the test."""
        path = os.path.join(self.useFixture(
            fixtures.fixtures.TempDir()).path, 'policy.yaml')
        with open(path, 'w') as f:
            yaml.safe_dump(rules, f)
        self.conf.set_override('policy_file', path, group='oslo_policy')
        fixtures.policy.reset()


class TestPropertiesAPI(PropertiesTestCase):

    def setUp(self):
        super().setUp()
        self._host('h1', gpu='true', rack='r1', cores=8, secret='s1')
        self._host('h2', gpu='false', rack='r1', cores=32)
        self._host('h3', rack='r2', cores=8)

    def test_new_capabilities_are_private_by_default(self):
        resp = self.request('GET', HOST_PROPS)
        self.assertEqual(200, resp.status)
        self.assertEqual([], resp.json())
        resp = self.request('GET', HOST_PROPS + '?all=true')
        self.assertEqual(
            [{'property': name, 'private': True}
             for name in ('cores', 'gpu', 'rack', 'secret')],
            resp.json())

    def test_public_default_from_configuration(self):
        self.conf.set_override('capability_default_visibility', 'public')
        self._host('h4', rack='r3', colour='blue')
        listed = self.request('GET', HOST_PROPS + '?all=true').json()
        flags = {item['property']: item['private'] for item in listed}
        # A new name takes the new default; an existing one keeps its flag.
        self.assertEqual({'colour': False, 'rack': True, 'cores': True,
                          'gpu': True, 'secret': True}, flags)

    def test_detail_lists_distinct_values(self):
        for name in ('gpu', 'rack', 'cores'):
            self._set_private(name, False)
        resp = self.request('GET', HOST_PROPS + '?detail=true')
        self.assertEqual(200, resp.status)
        self.assertEqual([
            {'property': 'cores', 'private': False,
             'values': [{'value': '8'}, {'value': '32'}]},
            {'property': 'gpu', 'private': False,
             'values': [{'value': 'false'}, {'value': 'true'}]},
            {'property': 'rack', 'private': False,
             'values': [{'value': 'r1'}, {'value': 'r2'}]},
        ], resp.json())

    def test_detail_false_means_false(self):
        self._set_private('rack', False)
        for query in ('', '?detail=false', '?detail=False', '?detail=0'):
            resp = self.request('GET', HOST_PROPS + query)
            self.assertEqual([{'property': 'rack', 'private': False}],
                             resp.json(), query)

    def test_show(self):
        resp = self.request('GET', HOST_PROPS + '/cores')
        self.assertEqual(200, resp.status)
        self.assertEqual({'property': 'cores', 'private': True,
                          'values': [{'value': '8'}, {'value': '32'}]},
                         resp.json())

    def test_patch_sets_flag_as_stored(self):
        self._set_private('gpu', False)
        self.assertFalse(
            self.request('GET', HOST_PROPS + '/gpu').json()['private'])
        self._set_private('gpu', True)
        self.assertTrue(
            self.request('GET', HOST_PROPS + '/gpu').json()['private'])

    def test_names_without_values_are_not_listed_but_shown(self):
        self._set_private('secret', False)
        host = [h for h in self.request('GET', '/v1/os-hosts').json()['hosts']
                if h['hypervisor_hostname'] == 'h1'][0]
        resp = self.request('PUT', '/v1/os-hosts/%s' % host['id'],
                            {'secret': None})
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([], self.request('GET', HOST_PROPS).json())
        shown = self.request('GET', HOST_PROPS + '/secret').json()
        self.assertEqual([], shown['values'])

    def test_unknown_resource_type_is_404_naming_it(self):
        for method, path, body in (
                ('GET', '/v1/virtual:nothing/properties', None),
                ('GET', '/v1/virtual:nothing/properties/gpu', None),
                ('PATCH', '/v1/virtual:nothing/properties/gpu',
                 {'private': False})):
            resp = self.request(method, path, body)
            self.assertEqual(404, resp.status, path)
            self.assertIn('virtual:nothing', resp.json()['error_message'])

    def test_unknown_property_is_404_naming_it(self):
        for method, body in (('GET', None), ('PATCH', {'private': True})):
            resp = self.request(method, HOST_PROPS + '/nope', body)
            self.assertEqual(404, resp.status)
            self.assertIn('nope', resp.json()['error_message'])
            self.assertIn('physical:host', resp.json()['error_message'])

    def test_other_paths_under_a_resource_type_are_404(self):
        resp = self.request('GET', '/v1/physical:host/other')
        self.assertEqual(404, resp.status)

    def test_methods_and_paths(self):
        # Names with dots and spaces are path segments like any other.
        self._host('h9', **{'a.b': '1', 'x y': '2'})
        for path in (HOST_PROPS + '/a.b', HOST_PROPS + '/x%20y'):
            self.assertEqual(200, self.request('GET', path).status, path)
        # A trailing slash is the collection.
        for path in (HOST_PROPS + '/', OSHOSTS_PROPS + '/'):
            self.assertEqual(200, self.request('GET', path).status, path)
        # PATCH changes one property, never the collection.
        for path in (HOST_PROPS, HOST_PROPS + '/', OSHOSTS_PROPS):
            resp = self.request('PATCH', path, {'private': True})
            self.assertEqual(405, resp.status, path)
            self.assertEqual('GET', resp.headers['Allow'])
        for method in ('POST', 'PUT', 'DELETE'):
            resp = self.request(method, HOST_PROPS + '/gpu',
                                {'private': True})
            self.assertEqual(405, resp.status, method)
            self.assertEqual(
                'The method is not allowed for the requested URL.',
                resp.json()['error_message'])
        resp = self.request('GET', HOST_PROPS + '/gpu/extra')
        self.assertEqual(404, resp.status)

    def test_bad_patch_body_is_400(self):
        required = "'private' is a required property"
        for body, reason in (
                ({}, required),
                ({'private': 'yes'}, "'private': 'yes' is not of type "
                                     "'boolean'"),
                ({'private': None}, "'private': None is not of type "
                                    "'boolean'"),
                ({'private': 1}, "'private': 1 is not of type 'boolean'"),
                ({'private': True, 'name': 'x'},
                 "Additional properties are not allowed ('name' was "
                 "unexpected)"),
                ({'capability_name': 'renamed'}, required),
                ([], "[] is not of type 'object'"),
                ('true', "'true' is not of type 'object'")):
            resp = self.request('PATCH', HOST_PROPS + '/gpu', body)
            self.assertEqual(400, resp.status, body)
            self.assertEqual('Invalid input: ' + reason,
                             resp.json()['error_message'])
        for raw in (b'{not json', b''):
            resp = self.request('PATCH', HOST_PROPS + '/gpu', raw=raw)
            self.assertEqual(400, resp.status, raw)

    def test_patch_cannot_rename(self):
        resp = self.request('PATCH', HOST_PROPS + '/gpu',
                            {'private': False, 'capability_name': 'gpu2'})
        self.assertEqual(400, resp.status)
        self.assertIn('capability_name', resp.json()['error_message'])
        names = [p['property'] for p in
                 self.request('GET', HOST_PROPS + '?all=true').json()]
        self.assertIn('gpu', names)
        self.assertNotIn('gpu2', names)

    def test_bad_query_is_400(self):
        for query, reason in (
                ('?detail=maybe', "'detail': 'maybe' is not of type "
                                  "'boolean'"),
                ('?all=', "'all': '' is not of type 'boolean'"),
                ('?details=true', "Additional properties are not allowed "
                                  "('details' was unexpected)")):
            resp = self.request('GET', HOST_PROPS + query)
            self.assertEqual(400, resp.status, query)
            self.assertEqual('Invalid input: ' + reason,
                             resp.json()['error_message'])

    def test_non_admin_is_403_by_default(self):
        self._set_private('rack', False)
        for method, path, body in (
                ('GET', HOST_PROPS, None),
                ('GET', HOST_PROPS + '/rack', None),
                ('PATCH', HOST_PROPS + '/rack', {'private': True}),
                ('GET', OSHOSTS_PROPS, None),
                ('PATCH', OSHOSTS_PROPS + '/rack', {'private': True})):
            resp = self._user(method, path, body)
            self.assertEqual(403, resp.status, (method, path))
        # The flag did not change.
        self.assertFalse(
            self.request('GET', HOST_PROPS + '/rack').json()['private'])


class TestPrivateProperties(PropertiesTestCase):
    """Policy opened to every user: private properties stay hidden."""

    def setUp(self):
        super().setUp()
        self.host = self._host('h1', rack='r1', secret_code='s3cr3t')
        self._set_private('rack', False)
        self._policy({'blazar:properties:list': '@',
                      'blazar:properties:get': '@',
                      'blazar:oshosts:get': '@'})

    def _assert_secret_hidden(self):
        listed = self._user('GET', HOST_PROPS + '?detail=true')
        self.assertEqual(200, listed.status, listed.text)
        self.assertEqual([{'property': 'rack', 'private': False,
                           'values': [{'value': 'r1'}]}], listed.json())
        for path in (OSHOSTS_PROPS + '?detail=true',
                     '/v1/os-hosts', '/v1/os-hosts/%s' % self.host['id']):
            resp = self._user('GET', path)
            self.assertEqual(200, resp.status, path)
            self.assertNotIn('secret', resp.text, path)
            self.assertNotIn('s3cr3t', resp.text, path)

    def test_private_vanishes_and_reappears_when_public(self):
        self._assert_secret_hidden()
        self._set_private('secret_code', False)
        listed = self._user('GET', HOST_PROPS + '?detail=true').json()
        self.assertIn({'property': 'secret_code', 'private': False,
                       'values': [{'value': 's3cr3t'}]}, listed)
        host = self._user('GET', '/v1/os-hosts/%s' % self.host['id'])
        self.assertEqual('s3cr3t', host.json()['host']['secret_code'])
        shown = self._user('GET', HOST_PROPS + '/secret_code')
        self.assertEqual(200, shown.status)
        # And hidden again once private.
        self._set_private('secret_code', True)
        self._assert_secret_hidden()

    def test_private_by_name_is_403_without_the_name(self):
        for path in (HOST_PROPS + '/secret_code',
                     OSHOSTS_PROPS + '/secret_code'):
            resp = self._user('GET', path)
            self.assertEqual(403, resp.status, path)
            self.assertNotIn('secret', resp.text)
        # An admin sees it.
        resp = self.request('GET', HOST_PROPS + '/secret_code')
        self.assertEqual(200, resp.status)
        self.assertTrue(resp.json()['private'])

    def test_unknown_by_name_is_404(self):
        resp = self._user('GET', HOST_PROPS + '/nope')
        self.assertEqual(404, resp.status)

    def test_all_needs_the_private_rule(self):
        for path in (HOST_PROPS + '?all=true',
                     OSHOSTS_PROPS + '?all=True&detail=True'):
            resp = self._user('GET', path)
            self.assertEqual(403, resp.status, path)
            self.assertNotIn('secret', resp.text)

    def test_update_stays_admin_only(self):
        resp = self._user('PATCH', HOST_PROPS + '/secret_code',
                          {'private': False})
        self.assertEqual(403, resp.status)
        self.assertNotIn('secret', resp.text)
        self._assert_secret_hidden()

    def test_get_private_opens_private_properties(self):
        self._policy({'blazar:properties:list': '@',
                      'blazar:properties:get': '@',
                      'blazar:oshosts:get': '@',
                      'blazar:properties:get_private': '@'})
        resp = self._user('GET', HOST_PROPS + '?all=true')
        self.assertEqual(['rack', 'secret_code'],
                         [p['property'] for p in resp.json()])
        host = self._user('GET', '/v1/os-hosts/%s' % self.host['id'])
        self.assertEqual('s3cr3t', host.json()['host']['secret_code'])


class TestUpstreamPolicyNames(PropertiesTestCase):

    def test_upstream_rule_names_still_apply(self):
        self._host('h1', rack='r1')
        self._set_private('rack', False)
        self._policy({'blazar:oshosts:get_resource_properties': '@'})
        resp = self._user('GET', OSHOSTS_PROPS)
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual(['rack'], [p['property'] for p in
                                    resp.json()['resource_properties']])


class TestOsHostsProperties(PropertiesTestCase):
    """The routes python-blazarclient calls, in upstream's shape."""

    def setUp(self):
        super().setUp()
        self._host('h1', gpu='true', rack='r1')
        self._host('h2', gpu='false')
        self._set_private('rack', False)

    def test_list(self):
        resp = self.request('GET', OSHOSTS_PROPS)
        self.assertEqual(200, resp.status)
        self.assertEqual(
            {'resource_properties': [{'property': 'rack',
                                      'private': False}]},
            resp.json())

    def test_list_detail_all(self):
        resp = self.request('GET', OSHOSTS_PROPS + '?detail=True&all=True')
        self.assertEqual(
            [{'property': 'gpu', 'private': True,
              'values': ['false', 'true']},
             {'property': 'rack', 'private': False, 'values': ['r1']}],
            resp.json()['resource_properties'])
        resp = self.request('GET', OSHOSTS_PROPS + '?detail=False&all=True')
        for item in resp.json()['resource_properties']:
            self.assertNotIn('values', item)

    def test_show(self):
        resp = self.request('GET', OSHOSTS_PROPS + '/gpu')
        self.assertEqual(200, resp.status)
        self.assertEqual({'property': 'gpu', 'private': True,
                          'values': ['false', 'true']},
                         resp.json()['resource_property'])

    def test_patch_answers_the_stored_property(self):
        resp = self.request('PATCH', OSHOSTS_PROPS + '/gpu',
                            {'private': False})
        self.assertEqual(200, resp.status, resp.text)
        answered = resp.json()['resource_property']
        # Upstream's keys beside blazar_ext's, so both kinds of script work.
        stamps = {k: answered.pop(k)
                  for k in ('id', 'created_at', 'updated_at')}
        self.assertEqual({'property': 'gpu', 'private': False,
                          'values': ['false', 'true'],
                          'resource_type': 'physical:host',
                          'property_name': 'gpu'}, answered)
        self.assertIsInstance(stamps['id'], str)
        self.assertTrue(stamps['id'])
        self.assertRegex(stamps['created_at'], r'^\d{4}-\d\d-\d\dT')
        self.assertRegex(stamps['updated_at'], r'^\d{4}-\d\d-\d\dT')
        resp = self.request('PATCH', OSHOSTS_PROPS + '/gpu',
                            {'private': True})
        self.assertTrue(resp.json()['resource_property']['private'])
        self.assertEqual(stamps['id'],
                         resp.json()['resource_property']['id'])

    def test_patch_errors(self):
        resp = self.request('PATCH', OSHOSTS_PROPS + '/nope',
                            {'private': True})
        self.assertEqual(404, resp.status)
        self.assertIn('nope', resp.json()['error_message'])
        resp = self.request('PATCH', OSHOSTS_PROPS + '/gpu',
                            {'private': True, 'capability_name': 'x'})
        self.assertEqual(400, resp.status)

    def test_host_routes_unaffected(self):
        hosts = self.request('GET', '/v1/os-hosts').json()['hosts']
        self.assertEqual(2, len(hosts))
        resp = self.request('GET', '/v1/os-hosts/%s' % hosts[0]['id'])
        self.assertEqual(200, resp.status)


class TestClient(cli.ReservationCommands, PropertiesTestCase):
    """python-blazarclient's commands against a real HTTP server."""

    def setUp(self):
        super().setUp()
        self.start_server()
        self._host('h1', gpu='true', rack='r1')
        self._host('h2', gpu='false', rack='r2')

    def test_list_show_set(self):
        prop = ('host', 'property')
        self.assertEqual([], self.json(*prop, 'list', '--detail'))
        # The README's words: a new capability is private, so even an
        # admin's show says it does not exist until it is published.
        result = self.openstack(*prop, 'show', 'gpu', ok=False)
        self.assertIn('The resource property does not exist', result.stderr)
        out = self.openstack(*prop, 'set', 'gpu', '--public').stdout
        self.assertIn('Updated host property: gpu', out)
        listed = self.json(*prop, 'list', '--detail')
        self.assertEqual([{'property': 'gpu', 'private': False,
                           'property_values': ['false', 'true']}], listed)
        shown = self.json(*prop, 'show', 'gpu')
        self.assertEqual('gpu', shown['property'])
        self.assertFalse(shown['private'])
        self.openstack(*prop, 'set', 'gpu', '--private')
        listed = self.json(*prop, 'list', '--all')
        self.assertIn({'property': 'gpu', 'private': True}, listed)
