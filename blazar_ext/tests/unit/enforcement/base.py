"""Test case for enforcement: configuration only.

It does not import the API or the manager, so the enforcement tests run on
their own.
"""

from oslo_config import fixture as config_fixture
from oslotest import base

from blazar_ext import conf


class TestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(config_fixture.Config(conf.CONF)).conf
        self.conf([], project='blazar-ext', default_config_files=[])
