"""Parsing of Placement's ``required`` trait syntax (query/traits.py)."""

import testtools

from blazar_ext.query import traits


class TestParse(testtools.TestCase):

    def test_required_and_forbidden(self):
        req = traits.parse('HW_CPU_X86_AVX,!CUSTOM_GPU')
        self.assertEqual({'HW_CPU_X86_AVX'}, req.required)
        self.assertEqual({'CUSTOM_GPU'}, req.forbidden)
        self.assertEqual((), req.any_of)
        self.assertEqual({'HW_CPU_X86_AVX', 'CUSTOM_GPU'}, req.names)

    def test_whitespace_around_elements_is_stripped(self):
        req = traits.parse('  HW_CPU_X86_AVX , !CUSTOM_GPU  ')
        self.assertEqual({'HW_CPU_X86_AVX'}, req.required)
        self.assertEqual({'CUSTOM_GPU'}, req.forbidden)

    def test_whitespace_between_bang_and_name_is_malformed(self):
        exc = self.assertRaises(traits.TraitRequirementError,
                                traits.parse, '! CUSTOM_GPU')
        self.assertIn("' CUSTOM_GPU'", str(exc))

    def test_in_is_any_of(self):
        req = traits.parse('in:CUSTOM_A, CUSTOM_B')
        self.assertEqual((frozenset({'CUSTOM_A', 'CUSTOM_B'}),), req.any_of)

    def test_in_with_one_name_is_required(self):
        req = traits.parse('in:CUSTOM_A')
        self.assertEqual({'CUSTOM_A'}, req.required)
        self.assertEqual((), req.any_of)

    def test_several_values_combine(self):
        req = traits.parse(['CUSTOM_A', 'in:CUSTOM_B,CUSTOM_C', '!CUSTOM_D'])
        self.assertEqual({'CUSTOM_A'}, req.required)
        self.assertEqual({'CUSTOM_D'}, req.forbidden)
        self.assertEqual(1, len(req.any_of))

    def test_empty_element_is_an_error(self):
        for value in ('CUSTOM_A,,CUSTOM_B', '', 'CUSTOM_A,', 'in:',
                      'in:CUSTOM_A,,CUSTOM_B', '!'):
            exc = self.assertRaises(traits.TraitRequirementError,
                                    traits.parse, value)
            self.assertTrue('empty element' in str(exc)
                            or 'Invalid trait name' in str(exc), value)

    def test_malformed_name_is_named(self):
        exc = self.assertRaises(traits.TraitRequirementError,
                                traits.parse, 'CUSTOM_A,custom_b')
        self.assertIn('custom_b', str(exc))

    def test_too_long_name(self):
        self.assertRaises(traits.TraitRequirementError, traits.parse,
                          'CUSTOM_' + 'A' * 249)
        self.assertEqual({'CUSTOM_' + 'A' * 248},
                         traits.parse('CUSTOM_' + 'A' * 248).required)

    def test_both_required_and_forbidden_is_named(self):
        exc = self.assertRaises(traits.TraitRequirementError,
                                traits.parse, 'CUSTOM_A,!CUSTOM_A')
        self.assertIn('CUSTOM_A', str(exc))
        self.assertIn('Conflicting', str(exc))

    def test_conflict_across_values(self):
        self.assertRaises(traits.TraitRequirementError, traits.parse,
                          ['CUSTOM_A', '!CUSTOM_A'])

    def test_any_of_entirely_forbidden_conflicts(self):
        self.assertRaises(traits.TraitRequirementError, traits.parse,
                          ['in:CUSTOM_A,CUSTOM_B', '!CUSTOM_A,!CUSTOM_B'])

    def test_forbidden_inside_in_is_an_error(self):
        exc = self.assertRaises(traits.TraitRequirementError,
                                traits.parse, 'in:CUSTOM_A,!CUSTOM_B')
        self.assertIn('!CUSTOM_B', str(exc))

    def test_forbidden_not_allowed(self):
        exc = self.assertRaises(traits.TraitRequirementError, traits.parse,
                                '!CUSTOM_A', allow_forbidden=False)
        self.assertIn('!CUSTOM_A', str(exc))

    def test_in_not_allowed_is_a_malformed_name(self):
        self.assertRaises(traits.TraitRequirementError, traits.parse,
                          'in:CUSTOM_A,CUSTOM_B', allow_any_of=False)

    def test_empty_requirement_is_false(self):
        self.assertFalse(traits.TraitRequirement())
        self.assertTrue(traits.parse('CUSTOM_A'))


class TestParseValue(testtools.TestCase):
    """The one parser behind both parse() and Placement's ``required``
    query parameters (api/placement/query_params.traits)."""

    def kind(self, value, **kwargs):
        return self.assertRaises(traits.TraitRequirementError,
                                 traits.parse_value, value, **kwargs).kind

    def test_groups_and_forbidden(self):
        groups, forbidden = traits.parse_value('A, !B ,C')
        self.assertEqual([{'A'}, {'C'}], groups)
        self.assertEqual({'B'}, forbidden)
        groups, forbidden = traits.parse_value('in:A, B')
        self.assertEqual([{'A', 'B'}], groups)
        self.assertEqual(frozenset(), forbidden)

    def test_names_are_not_checked(self):
        self.assertEqual([{'lower'}],
                         traits.parse_value('lower')[0])

    def test_kinds(self):
        self.assertEqual(traits.EMPTY, self.kind('A,,B'))
        self.assertEqual(traits.EMPTY, self.kind('!'))
        self.assertEqual(traits.EMPTY, self.kind('in:A,'))
        self.assertEqual(traits.FORBIDDEN_IN_ANY_OF, self.kind('in:A,!B'))
        self.assertEqual(traits.ANY_OF_UNSUPPORTED,
                         self.kind('in:A,B', allow_any_of=False))
        self.assertEqual(traits.FORBIDDEN_UNSUPPORTED,
                         self.kind('A,!B', allow_forbidden=False))
        self.assertEqual(traits.NAME, self.assertRaises(
            traits.TraitRequirementError, traits.parse, 'a').kind)
        self.assertEqual(traits.CONFLICT, self.assertRaises(
            traits.TraitRequirementError, traits.parse, 'A,!A').kind)

    def test_conflicts_and_requirement(self):
        groups = [frozenset({'A'}), frozenset({'B', 'C'}), frozenset({'D'})]
        self.assertEqual([{'B', 'C'}], traits.conflicts(
            groups, frozenset({'B', 'C'})))
        req = traits.requirement(groups, frozenset({'E'}))
        self.assertEqual({'A', 'D'}, req.required)
        self.assertEqual(({'B', 'C'},), req.any_of)
        self.assertEqual({'E'}, req.forbidden)
