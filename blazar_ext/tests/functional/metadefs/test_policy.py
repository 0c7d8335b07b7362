"""Metadefs policy defaults can be overridden in policy.yaml."""

import os

import fixtures
from oslo_policy import opts as policy_opts

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
