"""The served schema documents are valid JSON Schema for the validators
clients use (warlock in python-glanceclient) and for ours."""

import jsonschema
import testtools

from blazar_ext.api.metadefs import schemas


class TestSchemaDocuments(testtools.TestCase):

    def test_ten_documents(self):
        self.assertEqual(
            {'namespace', 'namespaces', 'property', 'properties', 'object',
             'objects', 'tag', 'tags', 'resource_type', 'resource_types'},
            set(schemas.DOCUMENTS))

    def test_documents_are_valid_schemas(self):
        for name, document in schemas.DOCUMENTS.items():
            for validator in (jsonschema.Draft4Validator,
                              jsonschema.Draft202012Validator):
                try:
                    validator.check_schema(document)
                except jsonschema.SchemaError as exc:
                    self.fail('%s (%s): %s' % (name, validator.__name__,
                                               exc))

    def test_operators_everywhere_a_property_is_defined(self):
        prop = schemas.DEFINITIONS['property']['additionalProperties']
        for where in (prop, schemas.PROPERTY):
            self.assertEqual({'type': 'array', 'items': {'type': 'string'}},
                             {k: v for k, v in
                              where['properties']['operators'].items()
                              if k != 'description'})
        self.assertNotIn('operators', schemas.PROPERTY['required'])

    def test_property_with_and_without_operators_validates(self):
        validator = jsonschema.Draft4Validator(schemas.PROPERTY)
        base = {'name': 'p', 'title': 'P', 'type': 'string'}
        self.assertTrue(validator.is_valid(base))
        self.assertTrue(validator.is_valid(dict(base, operators=['<or>'])))
        self.assertFalse(validator.is_valid(dict(base, operators='<or>')))
        self.assertFalse(validator.is_valid(dict(base, operators=[1])))
