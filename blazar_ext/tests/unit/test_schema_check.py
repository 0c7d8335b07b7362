"""schema_check: a quick yes only where jsonschema finds no error, on the
API's own request schemas and random instances of their shape."""

import importlib
import pkgutil
import random

import jsonschema
from oslotest import base

from blazar_ext.api import schema_check
from blazar_ext.api.v1 import schemas as v1_schemas
from blazar_ext.api.v1.schemas import lease as lease_schema
from blazar_ext.api import validation
from blazar_ext import exceptions


def _schemas() -> list:
    """Every module-level schema (a dict with a type or properties) of
    the reservation API's schema modules."""
    found = []
    for info in pkgutil.iter_modules(v1_schemas.__path__):
        module = importlib.import_module(
            '%s.%s' % (v1_schemas.__name__, info.name))
        for name, value in vars(module).items():
            if isinstance(value, dict) and (
                    'type' in value or 'properties' in value):
                found.append(('%s.%s' % (info.name, name), value))
    return found


_SCALARS = ['', ' ', 'a', ' a', 'a ', 'name', 'x' * 70, 'x' * 81,
            'x' * 300, '2026-11-27 13:00', 'physical:host', 'CUSTOM_X',
            0, 1, -1, 7, 1.0, 1.5, True, False, None, '\u00e9', 'a\nb']


def _instance(schema, rng: random.Random, depth: int = 0):
    """A random value near ``schema``'s shape (often valid, often not)."""
    if depth > 3 or not isinstance(schema, dict) or rng.random() < 0.15:
        return rng.choice(_SCALARS + [[], {}])
    kinds = schema.get('type', 'object')
    kind = rng.choice(kinds if isinstance(kinds, list) else [kinds])
    if kind == 'object' or 'properties' in schema and rng.random() < .5:
        names = list(schema.get('properties', {}))
        value = {}
        for name in names:
            if rng.random() < 0.7:
                value[name] = _instance(schema['properties'][name], rng,
                                        depth + 1)
        if rng.random() < 0.2:
            value['extra'] = 1
        return value
    if kind == 'array':
        return [_instance(schema.get('items', {}), rng, depth + 1)
                for _ in range(rng.randrange(4))]
    if 'enum' in schema and rng.random() < 0.7:
        return rng.choice(schema['enum'])
    return rng.choice(_SCALARS)


class TestSchemaCheck(base.BaseTestCase):

    def test_quick_yes_only_where_jsonschema_finds_none(self):
        rng = random.Random(27)
        compiled = 0
        for name, schema in _schemas():
            quick = schema_check.compile(schema)
            if quick is None:
                continue
            compiled += 1
            validator = jsonschema.Draft202012Validator(
                schema, format_checker=jsonschema.FormatChecker())
            yes = 0
            for _ in range(400):
                value = _instance(schema, rng)
                if quick(value):
                    yes += 1
                    self.assertTrue(validator.is_valid(value),
                                    (name, value))
        self.assertGreater(compiled, 10)

    def test_lease_create_body_is_a_quick_yes(self):
        quick = schema_check.compile(lease_schema.CREATE)
        self.assertTrue(quick({
            'name': 'l', 'start_date': '2026-11-27 13:00',
            'end_date': '2026-11-27 14:00', 'before_end_date': None,
            'reservations': [{'resource_type': 'physical:host', 'min': 1,
                              'max': '2', 'hypervisor_properties': '',
                              'resource_properties': '["==", "$a", "b"]'}],
            'events': []}))
        for bad in ({'name': ' l', 'start_date': 'a', 'end_date': 'b'},
                    {'name': 'l', 'start_date': 'a'},
                    {'name': 'l', 'start_date': 'a', 'end_date': 'b',
                     'reservations': [{'min': 1}]},
                    {'name': 'l', 'start_date': 'a', 'end_date': 'b',
                     'reservations': [{'resource_type': 'x', 'min': True}]}):
            self.assertFalse(quick(bad), bad)

    def test_unsure_left_to_jsonschema(self):
        # An integer-valued float is an integer to jsonschema.
        schema = {'type': 'object', 'properties': {'n': {'type': 'integer'}}}
        self.assertFalse(schema_check.compile(schema)({'n': 1.0}))
        validation.validate(schema, {'n': 1.0})
        self.assertRaises(exceptions.Invalid, validation.validate, schema,
                          {'n': 1.5})
        for unknown in ({'format': 'uuid'}, {'$ref': '#/x'},
                        {'anyOf': [{}]}, {'type': 'object',
                                          'patternProperties': {}},
                        {'minimum': 1}, {'enum': [1, 'a']},
                        {'additionalProperties': {'type': 'string'}},
                        {'items': [{}]}, {'type': 'weird'}):
            self.assertIsNone(schema_check.compile(unknown), unknown)

    def test_messages_as_before(self):
        for values, words in (
                ({'name': ' x', 'start_date': 'a', 'end_date': 'b'},
                 "'name': ' x' does not match"),
                ({'name': 'x', 'start_date': 'a'},
                 "'end_date' is a required property"),
                ({'name': 'x' * 81, 'start_date': 'a', 'end_date': 'b'},
                 "'name' is longer than 80 characters")):
            exc = self.assertRaises(exceptions.Invalid, validation.validate,
                                    lease_schema.CREATE, values)
            self.assertIn(words, str(exc))
