"""Parsing the property language: shapes, operators and every error."""

import json

import testtools

from blazar_ext import exceptions
from blazar_ext.query import language as lang


class TestParse(testtools.TestCase):

    def assertInvalid(self, expression, *fragments,
                      field='resource_properties'):
        error = self.assertRaises(exceptions.Invalid, lang.parse, expression,
                                  field)
        self.assertEqual(400, error.status)
        self.assertIn(field, str(error))
        for fragment in fragments:
            self.assertIn(fragment, str(error))
        return error

    def test_empty_means_no_filter(self):
        for empty in (None, '', '   ', '[]', []):
            self.assertIsNone(lang.parse(empty), repr(empty))

    def test_single_comparison(self):
        self.assertEqual(lang.Comparison('==', 'vcpus', '8'),
                         lang.parse('["==", "$vcpus", "8"]'))

    def test_every_comparison_operator(self):
        for op in ('==', '!=', '<', '<=', '>', '>=', 's==', 's!=', 's<',
                   's<=', 's>', 's>=', '<in>'):
            self.assertEqual(lang.Comparison(op, 'a', 'b'),
                             lang.parse([op, '$a', 'b']))

    def test_text_and_list_forms_are_equal(self):
        expression = ['and', ['>=', '$memory_mb', '4096'],
                      ['==', '$gpu', 'true']]
        self.assertEqual(lang.parse(expression),
                         lang.parse(json.dumps(expression)))

    def test_nesting(self):
        parsed = lang.parse(
            '["or", ["and", [">=", "$memory_mb", "4096"], '
            '["not", ["==", "$gpu", "true"]]], ["in", "$rack", "r1", "r2"]]')
        self.assertEqual(
            lang.Or((lang.And((lang.Comparison('>=', 'memory_mb', '4096'),
                               lang.Not(lang.Comparison('==', 'gpu',
                                                        'true')))),
                     lang.Membership('in', 'rack', ('r1', 'r2')))),
            parsed)

    def test_and_or_with_one_item(self):
        self.assertEqual(lang.And((lang.Comparison('==', 'a', 'b'),)),
                         lang.parse(['and', ['==', '$a', 'b']]))
        self.assertEqual(lang.Or((lang.Comparison('==', 'a', 'b'),)),
                         lang.parse(['or', ['==', '$a', 'b']]))

    def test_membership_operators(self):
        for op in ('in', '<or>', '<all-in>'):
            self.assertEqual(lang.Membership(op, 'f', ('x', 'y')),
                             lang.parse([op, '$f', 'x', 'y']))
            # A single JSON list of values is accepted too.
            self.assertEqual(lang.Membership(op, 'f', ('x', 'y')),
                             lang.parse([op, '$f', ['x', 'y']]))
            self.assertEqual(lang.Membership(op, 'f', ('x',)),
                             lang.parse([op, '$f', 'x']))

    def test_json_scalars_become_strings(self):
        self.assertEqual(lang.Comparison('>=', 'memory_mb', '4096'),
                         lang.parse(['>=', '$memory_mb', 4096]))
        self.assertEqual(lang.Comparison('==', 'gpu', 'true'),
                         lang.parse(['==', '$gpu', True]))
        self.assertEqual(lang.Comparison('==', 'gpu', 'false'),
                         lang.parse(['==', '$gpu', False]))
        self.assertEqual(lang.Comparison('<', 'load', '0.5'),
                         lang.parse('["<", "$load", 0.5]'))
        # Plain notation: 1e3 must stay a number, not become '1000.0e0'.
        self.assertEqual(lang.Comparison('<', 'n', '1000.0'),
                         lang.parse('["<", "$n", 1e3]'))
        self.assertEqual(lang.Membership('in', 'n', ('1', 'true')),
                         lang.parse(['in', '$n', 1, True]))

    def test_not_json(self):
        self.assertInvalid('["==", "$a"', 'not valid JSON')
        self.assertInvalid('{not json', 'not valid JSON')

    def test_non_finite_numbers(self):
        for literal in ('NaN', 'Infinity', '-Infinity'):
            self.assertInvalid('[">=", "$a", %s]' % literal,
                               '%s is not a JSON number; use a finite '
                               'number' % literal)
        self.assertInvalid('[">=", "$a", 1e999]',
                           '1e999 is too large a number')

    def test_field_is_named(self):
        self.assertInvalid('nope', 'not valid JSON',
                           field='hypervisor_properties')

    def test_not_a_list(self):
        for expression in ('"text"', '42', '{"==": 1}', 'true', 'null'):
            self.assertInvalid(expression, 'expected a non-empty list')

    def test_nested_empty_list(self):
        self.assertInvalid(['and', []], 'expected a non-empty list')

    def test_operator_must_be_a_string(self):
        self.assertInvalid([['==', '$a', 'b']], 'expected an operator')
        self.assertInvalid([1, '$a', 'b'], 'expected an operator')

    def test_unknown_operator_is_named(self):
        error = self.assertInvalid(['=~', '$a', 'b'], '"=~"',
                                   'supported operators')
        for op in lang.operators_supported():
            self.assertIn(op, str(error))
        self.assertInvalid(['and', ['===', '$a', 'b']], '"==="')
        self.assertInvalid(['AND', ['==', '$a', 'b']], '"AND"')

    def test_comparison_arity(self):
        for op in ('==', 's<', '<in>'):
            self.assertInvalid([op, '$a'], '"%s" takes a property and one '
                               'value' % op)
            self.assertInvalid([op, '$a', 'b', 'c'], 'takes a property')
            self.assertInvalid([op], 'takes a property')

    def test_membership_arity(self):
        for op in ('in', '<or>', '<all-in>'):
            self.assertInvalid([op, '$a'], 'at least one value')
            self.assertInvalid([op, '$a', []], 'at least one value')

    def test_logical_arity(self):
        self.assertInvalid(['and'], '"and" needs at least one')
        self.assertInvalid(['or'], '"or" needs at least one')
        self.assertInvalid(['not'], '"not" takes exactly one')
        self.assertInvalid(['not', ['==', '$a', 'b'], ['==', '$a', 'c']],
                           '"not" takes exactly one')
        self.assertInvalid(['and', '==', '$a', 'b'],
                           'expected a non-empty list')

    def test_property_must_start_with_dollar(self):
        self.assertInvalid(['==', 'memory_mb', '1'], '"memory_mb"',
                           'expected a property')
        self.assertInvalid(['==', '$', '1'], 'expected a property')
        self.assertInvalid(['==', 7, '1'], 'expected a property')
        self.assertInvalid(['in', 'rack', 'r1'], 'expected a property')

    def test_bad_values(self):
        for value in (None, {'a': 1}, ['x']):
            self.assertInvalid(['==', '$a', value],
                               'must be a string, number or boolean')
        self.assertInvalid(['in', '$a', 'x', None],
                           'must be a string, number or boolean')
        self.assertInvalid(['in', '$a', ['x', ['y']]],
                           'must be a string, number or boolean')

    def test_substring_must_not_be_empty(self):
        self.assertInvalid(['<in>', '$cpu_model', ''], 'non-empty substring')

    def test_all_in_tokens_are_whole_elements(self):
        for token in ('', 'a b', 'a,b', '[a', 'a]', '"a"'):
            self.assertInvalid(['<all-in>', '$f', 'x', token],
                               '"<all-in>" elements')

    def test_depth_limit(self):
        expression = ['==', '$a', 'b']
        for _ in range(lang.MAX_DEPTH):
            expression = ['not', expression]
        self.assertInvalid(expression, 'nested more than')
        self.assertInvalid('[' * 100000 + ']' * 100000)

    def test_size_limit(self):
        many = ['or'] + [['==', '$a', str(i)]
                         for i in range(lang.MAX_NODES)]
        self.assertInvalid(many, 'more than %d terms' % lang.MAX_NODES)
        values = ['in', '$a'] + [str(i) for i in range(lang.MAX_NODES)]
        self.assertInvalid(values, 'more than')

    def test_long_messages_are_shortened(self):
        error = self.assertInvalid(['bogus', '$a', 'x' * 1000])
        self.assertLess(len(str(error)), 600)

    def test_properties_of(self):
        parsed = lang.parse(['and', ['==', '$a', '1'],
                             ['not', ['in', '$b', '1']],
                             ['or', ['<all-in>', '$c', 'x'],
                              ['==', '$a', '2']]])
        self.assertEqual({'a', 'b', 'c'}, lang.properties_of(parsed))
        self.assertEqual(set(), lang.properties_of(None))


class TestNumbers(testtools.TestCase):

    def test_numbers(self):
        for text in ('0', '8', '-3', '4096', '0.5', '-12.25', '007',
                     '1' * lang.MAX_NUMBER_LENGTH):
            self.assertTrue(lang.is_number(text), text)

    def test_not_numbers(self):
        for text in ('', '-', '.', '.5', '5.', '-.5', '1.2.3', '1-2', '+1',
                     '1e3', ' 1', '1 ', 'nan', 'inf', '0x10', '1_000',
                     '\u0663', '1' * (lang.MAX_NUMBER_LENGTH + 1)):
            self.assertFalse(lang.is_number(text), text)

    def test_non_finite_spellings(self):
        for text in ('nan', 'NaN', 'inf', '-Inf', '+infinity', ' INF ',
                     'Infinity'):
            self.assertTrue(lang.spells_non_finite(text), text)
        for text in ('', 'infinite', 'nano', 'info', 'in f', 'nan1', '1'):
            self.assertFalse(lang.spells_non_finite(text), text)


class TestOperators(testtools.TestCase):

    def test_operators_supported(self):
        self.assertEqual(
            ['==', '!=', '<', '<=', '>', '>=', 'and', 'or', 'not', 'in',
             '<or>', '<all-in>', '<in>', 's==', 's!=', 's<', 's<=', 's>',
             's>='],
            lang.operators_supported())

    def test_every_supported_operator_parses(self):
        for op in lang.operators_supported():
            if op in ('and', 'or'):
                expression = [op, ['==', '$a', 'b']]
            elif op == 'not':
                expression = [op, ['==', '$a', 'b']]
            else:
                expression = [op, '$a', 'b']
            self.assertIsNotNone(lang.parse(expression), op)
