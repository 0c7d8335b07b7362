"""Finding and ordering filters: entry points, module paths, bad names."""

import os
import sys
import textwrap
import uuid

import fixtures

from blazar_ext import enforcement
from blazar_ext.enforcement import base as filter_base
from blazar_ext.enforcement.filters import external_service
from blazar_ext.enforcement.filters import max_length
from blazar_ext import exceptions
from blazar_ext.tests.unit.enforcement import base

# Filters reachable by module path from this test module.
CALLS = []


class RecordingFilter(filter_base.BaseFilter):
    def check_create(self, context, lease):
        CALLS.append((self.name, 'check_create'))


class FirstFilter(RecordingFilter):
    pass


class SecondFilter(RecordingFilter):
    pass


class DenyingFilter(filter_base.BaseFilter):
    def check_create(self, context, lease):
        CALLS.append((self.name, 'check_create'))
        raise self.reject('Denied by %s.' % self.name)


def some_filters() -> list:
    return [FirstFilter, SecondFilter]


class NotAFilter:
    pass


THIS = __name__


class BuiltinLoadingTest(base.TestCase):

    def test_defaults_in_spec_order(self):
        chain = enforcement.get_chain(self.conf)
        self.assertEqual(['MaximumReservationLengthFilter',
                          'ExternalServiceFilter'], chain.filter_names)
        self.assertIsInstance(chain.filters[0],
                              max_length.MaximumReservationLengthFilter)
        self.assertIsInstance(chain.filters[1],
                              external_service.ExternalServiceFilter)

    def test_defaults_allow_everything(self):
        chain = enforcement.get_chain(self.conf)
        # No endpoint: the external filter calls nothing.
        self.assertFalse(chain.filters[1].active)
        self.assertIsNone(chain.check_create(
            {'project_id': 'p'}, {'start_date': '2030-01-01 00:00',
                                  'end_date': '2090-01-01 00:00'}))

    def test_entry_points_found_by_stevedore(self):
        # Nothing in available_filters: only the installed entry points.
        self.conf.set_override('available_filters', [], group='enforcement')
        found = enforcement.available_filters(self.conf)
        self.assertIs(max_length.MaximumReservationLengthFilter,
                      found['MaximumReservationLengthFilter'])
        self.assertIs(max_length.MaximumReservationLengthFilter,
                      found['MaxLeaseDurationFilter'])
        self.assertIs(external_service.ExternalServiceFilter,
                      found['ExternalServiceFilter'])

    def test_upstream_name(self):
        self.conf.set_override('enabled_filters', ['MaxLeaseDurationFilter'],
                               group='enforcement')
        self.conf.set_override('available_filters', [], group='enforcement')
        chain = enforcement.get_chain(self.conf)
        self.assertIsInstance(chain.filters[0],
                              max_length.MaximumReservationLengthFilter)

    def test_empty_chain(self):
        self.conf.set_override('enabled_filters', [], group='enforcement')
        chain = enforcement.get_chain(self.conf)
        self.assertEqual([], chain.filters)
        chain.check_create({}, {})

    def test_unknown_name_is_a_clear_error(self):
        self.conf.set_override('enabled_filters',
                               ['MaximumReservationLengthFilter', 'Nope'],
                               group='enforcement')
        exc = self.assertRaises(enforcement.FilterLoadError,
                                enforcement.get_chain, self.conf)
        self.assertIn("Unknown usage enforcement filter 'Nope' in "
                      "[enforcement] enabled_filters", str(exc))
        self.assertIn('ExternalServiceFilter', str(exc))

    def test_bad_module_path_is_a_clear_error(self):
        self.conf.set_override('available_filters', ['no.such.module'],
                               group='enforcement')
        exc = self.assertRaises(enforcement.FilterLoadError,
                                enforcement.get_chain, self.conf)
        self.assertIn("'no.such.module'", str(exc))

    def test_filter_that_is_not_a_filter(self):
        self.conf.set_override('available_filters',
                               [THIS + '.NotAFilter'], group='enforcement')
        self.conf.set_override('enabled_filters', ['NotAFilter'],
                               group='enforcement')
        exc = self.assertRaises(enforcement.FilterLoadError,
                                enforcement.get_chain, self.conf)
        self.assertIn('not a subclass', str(exc))


class ModulePathTest(base.TestCase):

    def setUp(self):
        super().setUp()
        del CALLS[:]

    def _chain(self, available, enabled):
        self.conf.set_override('available_filters', available,
                               group='enforcement')
        self.conf.set_override('enabled_filters', enabled,
                               group='enforcement')
        return enforcement.get_chain(self.conf)

    def test_module_runs_in_configured_order(self):
        chain = self._chain([THIS], ['SecondFilter', 'FirstFilter'])
        chain.check_create({}, {})
        self.assertEqual([('SecondFilter', 'check_create'),
                          ('FirstFilter', 'check_create')], CALLS)

    def test_callable_and_class_paths(self):
        chain = self._chain([THIS + '.some_filters',
                             THIS + ':DenyingFilter'],
                            ['FirstFilter', 'DenyingFilter', 'SecondFilter'])
        exc = self.assertRaises(exceptions.EnforcementRejected,
                                chain.check_create, {}, {})
        self.assertEqual('Denied by DenyingFilter.', str(exc))
        self.assertEqual('DenyingFilter', exc.filter_name)
        # The chain stops at the first denial.
        self.assertEqual([('FirstFilter', 'check_create'),
                          ('DenyingFilter', 'check_create')], CALLS)

    def test_denial_first_stops_the_rest(self):
        chain = self._chain([THIS], ['DenyingFilter', 'FirstFilter'])
        self.assertRaises(exceptions.EnforcementRejected,
                          chain.check_create, {}, {})
        self.assertEqual([('DenyingFilter', 'check_create')], CALLS)


class EntryPointTest(base.TestCase):
    """A custom filter shipped as an entry point of another package."""

    def _install_package(self) -> str:
        """A real distribution on sys.path declaring one filter."""
        path = self.useFixture(fixtures.TempDir()).path
        module = 'custom_filter_%s' % uuid.uuid4().hex[:8]
        with open(os.path.join(path, module + '.py'), 'w') as f:
            f.write(textwrap.dedent('''
                from blazar_ext.enforcement import base

                class QuotaFilter(base.BaseFilter):
                    def check_create(self, context, lease):
                        if len(lease['reservations']) > 1:
                            raise self.reject('One reservation per lease.')
                '''))
        dist = os.path.join(path, module + '-1.0.dist-info')
        os.mkdir(dist)
        with open(os.path.join(dist, 'METADATA'), 'w') as f:
            f.write('Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n'
                    % module)
        with open(os.path.join(dist, 'entry_points.txt'), 'w') as f:
            f.write('[blazar_ext.enforcement.filters]\n'
                    'OneReservationFilter = %s:QuotaFilter\n' % module)
        self.useFixture(fixtures.PythonPathEntry(path))
        self.addCleanup(sys.modules.pop, module, None)
        # stevedore caches entry points in memory per namespace and on disk
        # per sys.path; start both afresh so the new distribution is seen.
        self.useFixture(fixtures.MonkeyPatch(
            'stevedore.extension.ExtensionManager.ENTRY_POINT_CACHE', {}))
        self.useFixture(fixtures.EnvironmentVariable(
            'XDG_CACHE_HOME', self.useFixture(fixtures.TempDir()).path))
        return module

    def test_custom_filter_loaded_from_entry_point(self):
        module = self._install_package()
        self.conf.set_override('available_filters', [], group='enforcement')
        self.conf.set_override(
            'enabled_filters',
            ['MaximumReservationLengthFilter', 'OneReservationFilter'],
            group='enforcement')
        chain = enforcement.get_chain(self.conf)
        self.assertEqual(['MaximumReservationLengthFilter', 'QuotaFilter'],
                         chain.filter_names)
        self.assertEqual(module, type(chain.filters[1]).__module__)
        chain.check_create({}, {'reservations': [{}]})
        exc = self.assertRaises(exceptions.EnforcementRejected,
                                chain.check_create, {},
                                {'reservations': [{}, {}]})
        self.assertEqual('One reservation per lease.', str(exc))
        self.assertEqual('QuotaFilter', exc.filter_name)


class DeprecatedOptionsTest(base.TestCase):
    """An upstream Blazar configuration keeps working."""

    def test_upstream_option_names(self):
        path = self.create_tempfiles([('blazar', textwrap.dedent('''
            [enforcement]
            enabled_filters = MaxLeaseDurationFilter,ExternalServiceFilter
            max_lease_duration = 86400
            external_service_base_endpoint = http://policy.example.com/v1/
            external_service_token = s3cret
            '''))])[0]
        self.conf(['--config-file', path], project='blazar-ext',
                  default_config_files=[])
        self.assertEqual(86400, self.conf.enforcement.reservation_max_length)
        self.assertEqual('http://policy.example.com/v1/',
                         self.conf.enforcement_external.endpoint_url)
        self.assertEqual('s3cret', self.conf.enforcement_external.token)
        chain = enforcement.get_chain(self.conf)
        self.assertEqual('http://policy.example.com/v1',
                         chain.filters[1].base_url)

    def test_endpoint_must_be_http(self):
        self.assertRaises(ValueError, self.conf.set_override,
                          'endpoint_url', 'ftp://x', 'enforcement_external')


class ManagerStartTest(base.TestCase):

    def test_unknown_filter_stops_the_manager(self):
        from blazar_ext.manager import service
        self.conf.set_override('transport_url', 'fake:/')
        self.conf.set_override('enabled_filters', ['Typo'],
                               group='enforcement')
        exc = self.assertRaises(enforcement.FilterLoadError,
                                service.ManagerService)
        self.assertIn("Unknown usage enforcement filter 'Typo'", str(exc))
