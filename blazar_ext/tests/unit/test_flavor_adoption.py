"""flavor:instance reservations of an upstream Blazar 18 database: the
plugin turns upstream's JSON copy of the Nova flavor into its own columns
(adopt_upstream_detail), and import-blazar asks it for each one."""

import json

from oslotest import base

from blazar_ext.cmd import import_blazar
from blazar_ext.db.api import blazar_import
from blazar_ext import exceptions
from blazar_ext.plugins import flavor_instance
from blazar_ext.plugins import virtual_instance


def nova_flavor(**values) -> dict:
    """A flavor as upstream's flavor plugin stores it: novaclient's
    to_dict() without links, plus the extra specs."""
    flavor = {'id': 'm1.gpu', 'name': 'm1.gpu', 'ram': 4096, 'disk': 20,
              'vcpus': 4, 'OS-FLV-EXT-DATA:ephemeral': 0, 'swap': '',
              'rxtx_factor': 1.0, 'os-flavor-access:is_public': True,
              'OS-FLV-DISABLED:disabled': False, 'description': None,
              'extra_specs': {}}
    flavor.update(values)
    return flavor


def upstream_row(stored, reservation_id='r1') -> dict:
    """An instance_reservations row of upstream's flavor plugin."""
    return {'id': 'd-' + reservation_id, 'reservation_id': reservation_id,
            'vcpus': 4, 'memory_mb': 4096, 'disk_gb': 20, 'amount': 3,
            'affinity': None,
            'resource_properties': (stored if isinstance(stored, str)
                                    else json.dumps(stored)),
            'flavor_id': reservation_id, 'server_group_id': None,
            'created_at': None, 'updated_at': None}


class TestAdoptUpstreamDetail(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.plugin = flavor_instance.FlavorInstancePlugin()

    def adopt(self, **flavor) -> dict:
        return self.plugin.adopt_upstream_detail(
            upstream_row(nova_flavor(**flavor)))

    def test_size_flavor_id_and_traits_as_normalize_makes_them(self):
        values = self.adopt(
            **{'OS-FLV-EXT-DATA:ephemeral': 10,
               'extra_specs': {'trait:CUSTOM_GPU_A100': 'required',
                               'trait:CUSTOM_SLOW': 'forbidden',
                               'resources:MEMORY_MB': '2048',
                               'hw:mem_page_size': 'large'}})
        self.assertEqual(
            {'flavor_id': 'm1.gpu', 'vcpus': 4, 'memory_mb': 2048,
             'disk_gb': 30,
             'resource_properties': json.dumps(
                 ['and', ['==', '$traits', 'CUSTOM_GPU_A100'],
                  ['not', ['==', '$traits', 'CUSTOM_SLOW']]])},
            values)

    def test_a_flavor_without_specs_or_traits(self):
        values = self.adopt(extra_specs=None)
        self.assertEqual(('m1.gpu', 4, 4096, 20, ''), tuple(
            values[k] for k in ('flavor_id', 'vcpus', 'memory_mb',
                                'disk_gb', 'resource_properties')))

    def test_what_cannot_be_kept_says_why(self):
        for stored, words in (
                (nova_flavor(extra_specs={'hw:cpu_policy': 'dedicated'}),
                 'hw:cpu_policy=dedicated'),
                (nova_flavor(extra_specs={'resources:PCPU': '2'}),
                 'asks for PCPU'),
                ({'id': 'x', 'vcpus': 1}, "cannot be read: KeyError 'ram'"),
                (nova_flavor(vcpus='many'), 'cannot be read: ValueError'),
                ('["==", "$gpu", "true"]', 'is not the JSON copy'),
                ('', 'is not the JSON copy')):
            exc = self.assertRaises(
                exceptions.Invalid, self.plugin.adopt_upstream_detail,
                upstream_row(stored))
            self.assertIn(words, str(exc))
            self.assertEqual(400, exc.status)

    def test_other_types_are_imported_as_stored(self):
        self.assertIsNone(
            virtual_instance.InstanceReservationPlugin()
            .adopt_upstream_detail(upstream_row('')))


class _Plugins:
    def __init__(self, *plugins):
        self.by_type = {p.resource_type: p for p in plugins}


class TestImportAsksThePlugins(base.BaseTestCase):

    def source(self) -> dict:
        source = {name: [] for name in blazar_import.SOURCE_TABLES}
        source['reservations'] = [
            {'id': r, 'resource_type': kind}
            for r, kind in (('r-ok', 'flavor:instance'),
                            ('r-pinned', 'flavor:instance'),
                            ('r-vi', 'virtual:instance'))]
        source['instance_reservations'] = [
            upstream_row(nova_flavor(), 'r-ok'),
            upstream_row(nova_flavor(
                extra_specs={'hw:cpu_policy': 'dedicated'}), 'r-pinned'),
            upstream_row('', 'r-vi')]
        return source

    def test_translations_and_reasons_by_reservation(self):
        adopted = import_blazar.adopt(self.source(), _Plugins(
            flavor_instance.FlavorInstancePlugin(),
            virtual_instance.InstanceReservationPlugin()))
        self.assertEqual({'r-ok', 'r-pinned'}, set(adopted))
        self.assertEqual('m1.gpu', adopted['r-ok']['flavor_id'])
        # The reason alone, as the dry run prints it.
        self.assertTrue(adopted['r-pinned'].startswith(
            'flavor:instance reservation: flavor m1.gpu asks for dedicated'),
            adopted['r-pinned'])

    def test_a_disabled_plugin_is_not_asked(self):
        self.assertEqual({}, import_blazar.adopt(self.source(), _Plugins()))
