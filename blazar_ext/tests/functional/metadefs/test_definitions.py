"""Shipped definitions, blazar-ext-manage metadefs load|export|unload, the
first-start loader and the catalog lookup for property discovery."""

import argparse
import importlib
import json
import os
import subprocess
import sys

import fixtures

from blazar_ext.cmd import manage
from blazar_ext.cmd import metadefs
from blazar_ext import context as blazar_context
from blazar_ext.db.api.metadefs import namespace as ns_api
from blazar_ext.db.api.metadefs import resource_type as rt_api
from blazar_ext import exceptions
from blazar_ext.plugins import loader as plugin_loader
from blazar_ext.tests import base
from blazar_ext.tests import fixtures as blazar_fixtures

HOST_NS = 'OS::Blazar::HostCapabilities'


class TestDefinitions(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.ctx = blazar_context.get_admin_context()
        self.api = self.useFixture(blazar_fixtures.APIFixture())

    def _manage(self, category: str, *argv: str) -> int:
        """Run a blazar-ext-manage command through its category parsers.

        (manage.main parses the global CONF, which the fixtures already
        did; test_manage_subprocess runs the real console script.)
        """
        module = importlib.import_module(manage.CATEGORIES[category])
        parser = argparse.ArgumentParser()
        module.add_parsers(parser.add_subparsers(dest='action',
                                                 required=True))
        args = parser.parse_args(list(argv))
        return args.func(args)

    def test_manage_subprocess(self):
        """The console script, against this test's database."""
        config = os.path.join(self.useFixture(fixtures.TempDir()).path,
                              'blazar-ext.conf')
        with open(config, 'w') as f:
            f.write('[database]\nconnection = %s\n' % self.db.url)
        out = self.useFixture(fixtures.TempDir()).path
        script = os.path.join(os.path.dirname(sys.executable),
                              'blazar-ext-manage')
        for argv in (['load'], ['export', out], ['unload', '--all']):
            proc = subprocess.run(
                [script, '--config-file', config, 'metadefs'] + argv,
                capture_output=True, text=True, timeout=60)
            self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertIn('OS-Blazar-HostCapabilities.json', os.listdir(out))
        self.assertEqual([], ns_api.namespace_list(self.ctx))

    def test_shipped_files_are_valid_and_found(self):
        path = metadefs.definitions_dir()
        self.assertIsNotNone(path)
        files = sorted(os.listdir(path))
        self.assertIn('blazar-host-capabilities.json', files)
        for name in files:
            metadefs._read(os.path.join(path, name))

    def test_first_start_loads_once(self):
        loaded = metadefs.load_shipped_on_first_start(self.ctx)
        self.assertIn(HOST_NS, loaded)
        self.assertEqual([], metadefs.load_shipped_on_first_start(self.ctx))

    def test_first_start_can_be_disabled(self):
        self.conf.set_override('load_on_first_start', False,
                               group='metadefs')
        self.assertEqual([], metadefs.load_shipped_on_first_start(self.ctx))
        self.assertEqual([], ns_api.namespace_list(self.ctx))

    def test_host_capabilities_through_the_api(self):
        metadefs.load(self.ctx, metadefs.definitions_dir())
        resp = self.api.request(
            'GET', '/v2/metadefs/namespaces?resource_types=OS::Blazar::Host',
            headers=blazar_fixtures.user_headers())
        self.assertEqual(200, resp.status, resp.text)
        names = [n['namespace'] for n in resp.json()['namespaces']]
        self.assertIn(HOST_NS, names)
        # Instance reservations filter hosts by the same capabilities.
        resp = self.api.request(
            'GET',
            '/v2/metadefs/namespaces?resource_types=OS::Blazar::Instance',
            headers=blazar_fixtures.user_headers())
        self.assertEqual(200, resp.status, resp.text)
        self.assertIn(HOST_NS, [n['namespace']
                                for n in resp.json()['namespaces']])
        resp = self.api.request('GET', '/v2/metadefs/resource_types')
        self.assertIn('OS::Blazar::Instance', [
            rt['name'] for rt in resp.json()['resource_types']])
        resp = self.api.request('GET', '/v2/metadefs/namespaces/' + HOST_NS)
        props = resp.json()['properties']
        self.assertEqual(['<or>', '<all-in>'],
                         props['cpu_features']['operators'])
        self.assertEqual(['<or>', '<in>'], props['cpu_model']['operators'])
        self.assertEqual(['<or>'], props['cpu_vendor']['operators'])
        self.assertNotIn('operators', props['gpu_count'])
        # Glance keeps a default as text, whatever the property's type.
        self.assertEqual('0', props['gpu_count']['default'])
        resp = self.api.request('DELETE', '/v2/metadefs/namespaces/' +
                                HOST_NS)
        self.assertEqual(403, resp.status)

    def test_catalog_properties_for_a_resource_type(self):
        metadefs.load(self.ctx, metadefs.definitions_dir())
        # The catalog type of physical:host comes from its plugin.
        _source, catalog = plugin_loader.Plugins(
            ['physical.host.plugin']).property_source('physical:host')
        self.assertEqual('OS::Blazar::Host', catalog)
        for resource_type in (catalog,):
            props = rt_api.catalog_properties(self.ctx, resource_type)
            self.assertEqual(
                {'name': 'cpu_features', 'title': 'CPU features',
                 'type': 'array', 'items_type': 'string',
                 'operators': ['<or>', '<all-in>'], 'namespace': HOST_NS},
                props['cpu_features'])
            self.assertIsNone(props['gpu']['operators'])
            self.assertIn('rack', props)
        self.assertEqual({}, rt_api.catalog_properties(self.ctx, 'nothing'))

    def test_catalog_properties_hides_private_namespaces(self):
        ns_api.namespace_create(
            self.ctx, {'namespace': 'secret', 'owner': 'p1',
                       'visibility': 'private'},
            properties={'hidden': {'title': 'H', 'type': 'string'}},
            associations=[{'name': 'OS::Blazar::Host', 'prefix': 'x_'}])
        self.assertIn('x_hidden',
                      rt_api.catalog_properties(self.ctx, 'OS::Blazar::Host'))
        self.assertIn('x_hidden', rt_api.catalog_properties(
            self.ctx, 'OS::Blazar::Host', visible_to='p1'))
        self.assertEqual({}, rt_api.catalog_properties(
            self.ctx, 'OS::Blazar::Host', visible_to='p2'))

    def test_manage_load_export_unload(self):
        out = self.useFixture(fixtures.TempDir()).path
        self.assertEqual(0, self._manage('metadefs', 'load'))
        loaded = {n['namespace'] for n in ns_api.namespace_list(self.ctx)}
        self.assertIn(HOST_NS, loaded)
        # Loading again skips what exists.
        self.assertEqual(0, self._manage('metadefs', 'load'))
        self.assertEqual(len(loaded), len(ns_api.namespace_list(self.ctx)))

        self.assertEqual(0, self._manage('metadefs', 'export', out))
        exported = os.path.join(out, 'OS-Blazar-HostCapabilities.json')
        with open(exported) as f:
            data = json.load(f)
        self.assertEqual(['<or>', '<all-in>'],
                         data['properties']['cpu_features']['operators'])
        self.assertNotIn('created_at', data)
        self.assertEqual([{'name': 'OS::Blazar::Host'},
                          {'name': 'OS::Blazar::Instance'}],
                         data['resource_type_associations'])

        self.assertEqual(0, self._manage('metadefs', 'unload', '--all'))
        self.assertEqual([], ns_api.namespace_list(self.ctx))

        # The export loads back to the same definitions.
        self.assertEqual(0, self._manage('metadefs', 'load', out))
        again = ns_api.namespace_get_full(self.ctx, HOST_NS)
        self.assertEqual(data['properties'], again['properties'])
        self.assertEqual(0, self._manage('metadefs', 'unload', '--namespace',
                                         HOST_NS))
        self.assertRaises(exceptions.NotFound, ns_api.namespace_get,
                          self.ctx, HOST_NS)

    def test_unload_needs_namespace_or_all(self):
        """A bare unload deletes nothing: the whole catalog goes only
        with --all."""
        self.assertEqual(0, self._manage('metadefs', 'load'))
        before = ns_api.namespace_list(self.ctx)
        stderr = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr))
        self.assertEqual(2, self._manage('metadefs', 'unload'))
        self.assertEqual(2, self._manage('metadefs', 'unload', '--all',
                                         '--namespace', HOST_NS))
        self.assertEqual(before, ns_api.namespace_list(self.ctx))
        stderr.seek(0)
        self.assertIn('give --namespace NAME (repeatable) or --all',
                      stderr.read())

    def test_unload_subprocess_refuses_without_all(self):
        """The console script: one line, exit 2, catalog untouched."""
        self.assertEqual(0, self._manage('metadefs', 'load'))
        config = os.path.join(self.useFixture(fixtures.TempDir()).path,
                              'blazar-ext.conf')
        with open(config, 'w') as f:
            f.write('[database]\nconnection = %s\n' % self.db.url)
        script = os.path.join(os.path.dirname(sys.executable),
                              'blazar-ext-manage')
        proc = subprocess.run(
            [script, '--config-file', config, 'metadefs', 'unload'],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(2, proc.returncode)
        self.assertEqual(
            ['metadefs unload: give --namespace NAME (repeatable) or --all '
             '(not both); nothing was unloaded.'],
            proc.stderr.splitlines())
        self.assertIn(HOST_NS, [n['namespace']
                                for n in ns_api.namespace_list(self.ctx)])

    def test_load_overwrite_replaces(self):
        path = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(path, 'a.json'), 'w') as f:
            json.dump({'namespace': 'a', 'protected': True,
                       'properties': {'p': {'title': 'P',
                                            'type': 'string'}}}, f)
        metadefs.load(self.ctx, path)
        with open(os.path.join(path, 'a.json'), 'w') as f:
            json.dump({'namespace': 'a', 'display_name': 'New'}, f)
        self.assertEqual([], metadefs.load(self.ctx, path))
        self.assertEqual(['a'], metadefs.load(self.ctx, path,
                                              overwrite=True))
        ns = ns_api.namespace_get_full(self.ctx, 'a')
        self.assertEqual('New', ns['display_name'])
        self.assertEqual({}, ns['properties'])

    def test_load_rejects_an_invalid_file(self):
        path = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(path, 'bad.json'), 'w') as f:
            json.dump({'namespace': 'bad', 'properties': {
                'p': {'title': 'P', 'type': 'string', 'enum': [1]}}}, f)
        self.assertEqual(1, self._manage('metadefs', 'load', path))
