"""Rates: validation, the YAML file (errors name the line), reloads."""

import decimal
import os
import tempfile

from blazar_ext import enforcement
from blazar_ext.enforcement.filters import budget
from blazar_ext.enforcement import rates
from blazar_ext import exceptions
from blazar_ext.tests import base

GOOD = """\
# Rates, first match wins.
rates:
  - resource_type: physical:host
    properties: ["==", "$gpu", "true"]
    credits_per_hour: 4
  - resource_type: virtual:instance
    credits_per_vcpu_hour: 0.5
    credits_per_gb_hour: 0.25
  - resource_type: virtual:floatingip
    credits_per_hour: 0.1
"""

BAD_EXPRESSION = """\
rates:
  - resource_type: physical:host
    credits_per_hour: 1
  - resource_type: physical:host
    properties: ["~~", "$gpu", "true"]
    credits_per_hour: 4
"""


class TestValidate(base.TestCase):

    def test_good_file(self):
        parsed = rates.parse_file(GOOD)
        self.assertEqual(['physical:host', 'virtual:instance',
                          'virtual:floatingip'],
                         [r['resource_type'] for r in parsed])
        self.assertEqual(['==', '$gpu', 'true'], parsed[0]['properties'])
        self.assertEqual(decimal.Decimal('0.25'),
                         parsed[1]['credits_per_gb_hour'])

    def test_bad_expression_names_the_line(self):
        exc = self.assertRaises(rates.RatesFileError, rates.parse_file,
                                BAD_EXPRESSION, 'rates.yaml')
        self.assertIn('rates.yaml line 5: rates[1]: properties', str(exc))

    def test_bad_field_names_its_line(self):
        exc = self.assertRaises(
            rates.RatesFileError, rates.parse_file,
            'rates:\n  - resource_type: physical:host\n    properties: []\n'
            '    credits_per_hour: -2\n', 'r.yaml')
        self.assertIn('r.yaml line 4: rates[0]: credits_per_hour', str(exc))
        exc = self.assertRaises(
            rates.RatesFileError, rates.parse_file,
            'rates:\n  - credits_per_hour: 2\n    price: 1\n', 'r.yaml')
        # No field to point at: the rate's first line.
        self.assertIn('r.yaml line 2: rates[0]: unknown field', str(exc))

    def test_expression_that_cannot_test_hosts_names_the_line(self):
        exc = self.assertRaises(
            rates.RatesFileError, rates.parse_file,
            'rates:\n  - resource_type: physical:host\n'
            '    credits_per_hour: 2\n'
            '    properties: ["<", "$memory_mb", "abc"]\n', 'r.yaml')
        self.assertIn('r.yaml line 4: rates[0]: properties: "$memory_mb" '
                      'is a number; "abc" is not', str(exc))

    def test_bad_yaml_names_the_line(self):
        exc = self.assertRaises(rates.RatesFileError, rates.parse_file,
                                'rates:\n  - a: [1\n  - b: 2\n', 'r.yaml')
        self.assertIn('r.yaml: line 3:', str(exc))

    def test_bad_values(self):
        for raw, words in (
                ({'resource_type': 'physical:host', 'credits_per_hour': -1},
                 'at least 0'),
                ({'resource_type': 'physical:host', 'credits_per_hour': 'x'},
                 'must be a number'),
                ({'resource_type': 'host'}, 'resource_type'),
                ({'resource_type': 'virtual:floatingip',
                  'properties': ['==', '$a', 'b']}, 'physical:host rates'),
                ({'resource_type': 'physical:host',
                  'credits_per_vcpu_hour': 1}, 'instance rates only'),
                ({'resource_type': 'physical:host', 'price': 1},
                 'unknown field'),
                # Parses, but no host can be tested against it.
                ({'resource_type': 'physical:host',
                  'properties': ['<', '$memory_mb', 'abc']},
                 'rates[0]: properties: "$memory_mb" is a number')):
            exc = self.assertRaises(exceptions.Invalid, rates.validate, raw,
                                    'rates[0]')
            self.assertIn(words, str(exc))


class TestRatesFile(base.TestCase):

    def write(self, text: str) -> str:
        fd, path = tempfile.mkstemp(suffix='.yaml')
        with os.fdopen(fd, 'w') as stream:
            stream.write(text)
        self.addCleanup(os.unlink, path)
        return path

    def test_bad_file_stops_the_chain_at_start(self):
        path = self.write(BAD_EXPRESSION)
        self.conf.set_override('rates_file', path, group='budgets')
        self.conf.set_override('enabled_filters', ['BudgetFilter'],
                               group='enforcement')
        exc = self.assertRaises(enforcement.FilterLoadError,
                                enforcement.load_filters, self.conf)
        self.assertIn('%s line 5: rates[1]: properties' % path, str(exc))

    def test_bad_reload_keeps_old_rates_and_logs(self):
        path = self.write(GOOD)
        self.conf.set_override('rates_file', path, group='budgets')
        flt = budget.BudgetFilter(self.conf)
        before = flt.pricer.source.file_rates()
        self.assertEqual(3, len(before))
        with open(path, 'w') as stream:
            stream.write(BAD_EXPRESSION)
        log = self.useFixture(base.fixtures.FakeLogger())
        self.assertFalse(flt.reload_rates())
        self.assertIs(before, flt.pricer.source.file_rates())
        self.assertIn('Rates not reloaded', log.output)
        self.assertIn('line 5: rates[1]: properties', log.output)
        with open(path, 'w') as stream:
            stream.write('rates: []\n')
        self.assertTrue(flt.reload_rates())
        self.assertEqual([], flt.pricer.source.file_rates())
