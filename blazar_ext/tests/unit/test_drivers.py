"""Loading configured drivers: every loader shares drivers.load."""

import testtools

from blazar_ext import drivers
from blazar_ext.drivers import compute
from blazar_ext.drivers import flavor_source
from blazar_ext.drivers import host_inventory
from blazar_ext import exceptions
from blazar_ext import health


class TestLoad(testtools.TestCase):

    def test_loads_a_named_driver(self):
        source = drivers.load('blazar_ext.health_sources', 'none',
                              'health source')
        self.assertIsInstance(source, health.NoHealthSource)

    def test_unknown_name_is_the_given_error_naming_the_label(self):
        exc = self.assertRaises(
            exceptions.HealthSourceError, drivers.load,
            'blazar_ext.health_sources', 'nope', 'health source',
            exceptions.HealthSourceError)
        self.assertIn("health source 'nope' cannot be loaded", str(exc))

    def test_default_error_is_a_configuration_error(self):
        exc = self.assertRaises(exceptions.ConfigurationError, drivers.load,
                                'blazar_ext.no_such_namespace', 'x', '[a] b')
        self.assertIn("[a] b 'x' cannot be loaded", str(exc))

    def test_each_loader_names_its_option(self):
        cases = [
            (compute.load, exceptions.ConfigurationError,
             "[manager] compute_driver 'nope'"),
            (flavor_source.load, exceptions.ConfigurationError,
             "[manager] flavor_source 'nope'"),
            (host_inventory.load, exceptions.InventorySourceError,
             "host inventory source 'nope'"),
            (health.load, exceptions.HealthSourceError,
             "health source 'nope'"),
        ]
        for load, error, label in cases:
            exc = self.assertRaises(error, load, 'nope')
            self.assertIn(label, str(exc))
