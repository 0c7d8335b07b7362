"""validation.parse_json: what it refuses, and the checks a body's bytes
show it does not need (no surrogate or NUL escape in them)."""

from unittest import mock

from oslotest import base

from blazar_ext.api import validation
from blazar_ext import exceptions


class TestParseJson(base.BaseTestCase):

    def _refused(self, body) -> str:
        exc = self.assertRaises(exceptions.Invalid, validation.parse_json,
                                body)
        return str(exc)

    def test_surrogate_and_nul_escapes_refused(self):
        for body in (b'{"a": "\\ud800"}', b'{"a": "\\uDC00"}',
                     b'["x", {"k": "\\udfff"}]', b'{"\\uD800": 1}',
                     '{"a": "\\ud800"}'):
            self.assertIn('surrogate', self._refused(body), body)
        for body in (b'{"a": "\\u0000"}', b'{"\\u0000": 1}',
                     b'[[["a\\u0000b"]]]', '{"a": "\\u0000"}'):
            self.assertIn('NUL', self._refused(body), body)

    def test_what_only_looks_like_them_is_kept(self):
        self.assertEqual({'a': '\\u0000'},
                         validation.parse_json(b'{"a": "\\\\u0000"}'))
        self.assertEqual({'a': '\\ud800'},
                         validation.parse_json(b'{"a": "\\\\ud800"}'))
        self.assertEqual({'a': '\U0001f600'},
                         validation.parse_json(b'{"a": "\\ud83d\\ude00"}'))
        self.assertEqual({'a': '\u00e9\U0001f600'}, validation.parse_json(
            '{"a": "\u00e9\U0001f600"}'.encode('utf-8')))

    def test_plain_body_not_walked_nor_encoded_again(self):
        # Before: every body was encoded again and walked for a NUL.
        with mock.patch.object(validation, '_has_nul') as has_nul, \
                mock.patch.object(validation.jsonutils, 'dumps') as dumps:
            self.assertEqual({'name': 'x', 'n': [1, 2.5]},
                             validation.parse_json(
                                 b'{"name": "x", "n": [1, 2.5]}'))
        has_nul.assert_not_called()
        dumps.assert_not_called()

    def test_text_is_always_checked(self):
        self.assertIn('surrogate', self._refused('["\ud800"]'))
