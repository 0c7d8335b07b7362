"""virtual:instance: the flavor and server group import-blazar keeps on a
reservation are shown, and no update (nor request) changes them."""

from oslotest import base

from blazar_ext.plugins import virtual_instance

STORED = {'id': 'r1', 'lease_id': 'l1', 'resource_type': 'virtual:instance',
          'amount': 2, 'vcpus': 2, 'memory_mb': 2048, 'disk_gb': 20,
          'affinity': True, 'resource_properties': '',
          'flavor_id': 'r1', 'server_group_id': 'sg-upstream'}


class TestImportedFields(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.plugin = virtual_instance.InstanceReservationPlugin()

    def test_shown_as_upstream_shows_them(self):
        view = self.plugin.view(STORED)
        self.assertEqual(('r1', 'sg-upstream'),
                         (view['flavor_id'], view['server_group_id']))
        made_here = dict(STORED, flavor_id=None, server_group_id=None)
        self.assertIsNone(self.plugin.view(made_here)['server_group_id'])

    def test_an_update_keeps_them_whatever_the_request_says(self):
        spec = self.plugin.normalize(
            {'amount': 1, 'server_group_id': 'forged', 'flavor_id': 'x'},
            self.plugin.spec_of(STORED))
        self.assertEqual((1, 'r1', 'sg-upstream'),
                         (spec['amount'], spec['flavor_id'],
                          spec['server_group_id']))

    def test_a_new_reservation_has_none(self):
        spec = self.plugin.normalize({'amount': 1, 'vcpus': 1,
                                      'memory_mb': 512, 'disk_gb': 1,
                                      'server_group_id': 'forged'})
        self.assertEqual((None, None), (spec['flavor_id'],
                                        spec['server_group_id']))
