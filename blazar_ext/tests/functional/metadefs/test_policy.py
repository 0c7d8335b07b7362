"""Metadefs policy defaults can be overridden in policy.yaml."""

import os

import fixtures
from oslo_policy import opts as policy_opts

from blazar_ext import policy
from blazar_ext.tests import base
from blazar_ext.tests import fixtures as blazar_fixtures


class TestPolicyOverride(base.DBTestCase):

    def _api(self, rules: str):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'policy.yaml')
        with open(path, 'w') as f:
            f.write(rules)
        policy_opts.set_defaults(self.conf)
        self.conf.set_override('policy_file', path, group='oslo_policy')
        return self.useFixture(blazar_fixtures.APIFixture())

    def test_reads_restricted_to_admins(self):
        api = self._api('"metadef_read": "rule:metadef_admin"\n')
        resp = api.request('POST', '/v2/metadefs/namespaces',
                           {'namespace': 'pub', 'visibility': 'public'})
        self.assertEqual(201, resp.status, resp.text)
        user = blazar_fixtures.user_headers()
        resp = api.request('GET', '/v2/metadefs/namespaces/pub',
                           headers=user)
        self.assertEqual(404, resp.status)
        resp = api.request('GET', '/v2/metadefs/namespaces/pub/properties',
                           headers=user)
        self.assertEqual(404, resp.status)

    def test_writes_opened_to_a_role(self):
        api = self._api('"add_metadef_namespace": "role:catalog_editor"\n'
                        '"add_metadef_property": "role:catalog_editor"\n')
        editor = blazar_fixtures.user_headers(roles='catalog_editor')
        resp = api.request('POST', '/v2/metadefs/namespaces',
                           {'namespace': 'mine'}, headers=editor)
        self.assertEqual(201, resp.status, resp.text)
        self.assertEqual('demo', resp.json()['owner'])
        resp = api.request('POST', '/v2/metadefs/namespaces/mine/properties',
                           {'name': 'p', 'title': 'P', 'type': 'string'},
                           headers=editor)
        self.assertEqual(201, resp.status, resp.text)
        # Other writes keep their admin-only default.
        resp = api.request('DELETE', '/v2/metadefs/namespaces/mine',
                           headers=editor)
        self.assertEqual(403, resp.status)
        self.assertIn('delete_metadef_namespace',
                      resp.json()['error']['message'])


class TestPolicyAsGlance(base.DBTestCase):
    """Visibility and policy as Glance layers them: a private namespace is
    seen by its project and metadefs admins only, whatever the rules say;
    a namespace one may read but not act on is a 403; lists leave out
    what a rule refuses. (Glance's own metadef policy tests check the
    same: tox -e glance-metadef-functional.)"""

    def setUp(self):
        super().setUp()
        self.api = None

    def _api(self, rules: str):
        """A private namespace with an object, made under the defaults;
        then ``rules`` in force."""
        self.api = self.useFixture(blazar_fixtures.APIFixture())
        resp = self.api.request('POST', '/v2/metadefs/namespaces',
                                {'namespace': 'private-ns',
                                 'owner': 'owner-project'})
        self.assertEqual(201, resp.status, resp.text)
        resp = self.api.request(
            'POST', '/v2/metadefs/namespaces/private-ns/objects',
            {'name': 'obj', 'properties': {}})
        self.assertEqual(201, resp.status, resp.text)
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'policy.yaml')
        with open(path, 'w') as f:
            f.write(rules)
        policy_opts.set_defaults(self.conf)
        self.conf.set_override('policy_file', path, group='oslo_policy')
        # The next request builds the enforcer again, reading the file.
        policy.reset()

    def _status(self, method: str, path: str, **headers) -> int:
        return self.api.request(method, '/v2/metadefs/namespaces' + path,
                                headers=headers or None).status

    def test_rules_open_to_all_do_not_reveal_a_private_namespace(self):
        self._api('"get_metadef_namespace": "@"\n'
                  '"delete_metadef_namespace": "@"\n'
                  '"get_metadef_objects": "@"\n')
        other = blazar_fixtures.user_headers(project='other-project')
        self.assertEqual(404, self._status('GET', '/private-ns', **other))
        self.assertEqual(404, self._status('GET', '/private-ns/objects',
                                           **other))
        self.assertEqual(404, self._status('DELETE', '/private-ns', **other))
        owner = blazar_fixtures.user_headers(project='owner-project')
        self.assertEqual(200, self._status('GET', '/private-ns', **owner))

    def test_a_refused_read_of_a_readable_namespace_is_403(self):
        self._api('"get_metadef_objects": "!"\n')
        self.assertEqual(403, self._status('GET', '/private-ns/objects'))
        # Showing the namespace embeds its objects: refused too.
        self.assertEqual(403, self._status('GET', '/private-ns'))
        self.assertEqual(200, self._status('GET', '/private-ns/tags'))

    def test_unreadable_namespace_is_404_whatever_the_action(self):
        self._api('"get_metadef_namespace": "!"\n'
                  '"get_metadef_objects": "!"\n')
        self.assertEqual(404, self._status('GET', '/private-ns/objects'))
        self.assertEqual(404, self._status('DELETE', '/private-ns'))

    def test_lists_leave_out_what_a_rule_refuses(self):
        self._api('"get_metadef_object": "!"\n'
                  '"get_metadef_namespace": "!"\n'
                  '"get_metadef_objects": "@"\n')
        resp = self.api.request('GET', '/v2/metadefs/namespaces')
        self.assertEqual([], resp.json()['namespaces'])

    def test_objects_list_empty_when_each_object_is_refused(self):
        self._api('"get_metadef_object": "!"\n')
        resp = self.api.request('GET',
                                '/v2/metadefs/namespaces/private-ns/objects')
        self.assertEqual(200, resp.status, resp.text)
        self.assertEqual([], resp.json()['objects'])

    def test_naming_a_resource_type_takes_its_rule(self):
        self._api('"get_metadef_resource_type": "!"\n')
        resp = self.api.request(
            'POST', '/v2/metadefs/namespaces/private-ns/properties',
            {'name': 'p', 'title': 'P', 'type': 'string'})
        self.assertEqual(201, resp.status, resp.text)
        path = '/private-ns/properties/p'
        self.assertEqual(200, self._status('GET', path))
        self.assertEqual(403, self._status(
            'GET', path + '?resource_type=OS::Nova::Flavor'))
        resp = self.api.request(
            'GET', '/v2/metadefs/namespaces/private-ns/resource_types')
        self.assertEqual([], resp.json()['resource_type_associations'])
