"""Test case for enforcement: configuration only.

It does not import the API or the manager, so the enforcement tests run on
their own.
"""

from oslo_config import fixture as config_fixture
from oslotest import base

from blazar_ext import conf
from blazar_ext import enforcement


class TestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.conf = self.useFixture(config_fixture.Config(conf.CONF)).conf
        self.conf([], project='blazar-ext', default_config_files=[])


class ExternalServiceTestCase(TestCase):
    """With chain(): the chain of ExternalServiceFilter alone, on ``url``."""

    def chain(self, url: str, allow_on_error: bool = False,
              timeout: float = 5.0, overrides: dict | None = None):
        self.conf.set_override('enabled_filters', ['ExternalServiceFilter'],
                               group='enforcement')
        self.conf.set_override('endpoint_url', url,
                               group='enforcement_external')
        self.conf.set_override('allow_on_error', allow_on_error,
                               group='enforcement_external')
        self.conf.set_override('timeout', timeout,
                               group='enforcement_external')
        for (group, name), value in (overrides or {}).items():
            self.conf.set_override(name, value, group=group)
        return enforcement.get_chain(self.conf)
