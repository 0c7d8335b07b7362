"""A quick yes for the common case of jsonschema validation.

jsonschema walks a schema in Python, keyword by keyword, each through a
generator: a tenth of a lease create's function calls, for a body that is
almost always valid. ``compile(schema)`` turns a schema made only of the
keywords below into one function that answers True only where jsonschema
(Draft 2020-12) would find no error, and False wherever it is not sure
(a float where an integer is asked, a keyword it does not know in a
subschema it meets...): the caller then asks jsonschema, which decides
and words the error. A schema with a keyword outside the list compiles to
None (jsonschema alone).

Keywords: type (string, integer, number, boolean, object, array, null),
properties, items (a schema), required, minProperties, maxProperties,
additionalProperties (false), minLength, maxLength, pattern, minItems,
maxItems, enum of strings; title, description, $comment, examples and
default (annotations).
"""

import re

_ANNOTATIONS = frozenset(('title', 'description', '$comment', 'examples',
                          'default'))
_KNOWN = frozenset(('type', 'properties', 'items', 'required',
                    'minProperties', 'maxProperties', 'additionalProperties',
                    'minLength', 'maxLength', 'pattern', 'minItems',
                    'maxItems', 'enum')) | _ANNOTATIONS

# Each type, as jsonschema's checker (bool is no integer nor number); an
# integer-valued float, which jsonschema takes as an integer, is left to
# it.
_TYPES = {
    'string': lambda value: type(value) is str,
    'integer': lambda value: type(value) is int,
    'number': lambda value: type(value) in (int, float),
    'boolean': lambda value: type(value) is bool,
    'object': lambda value: type(value) is dict,
    'array': lambda value: type(value) is list,
    'null': lambda value: value is None,
}


class _Unsupported(Exception):
    pass


def compile(schema):
    """A function(instance) -> bool (True: surely valid), or None."""
    try:
        return _compile(schema)
    except _Unsupported:
        return None


def _compile(schema):
    if schema is True:
        return lambda value: True
    if type(schema) is not dict or not schema.keys() <= _KNOWN:
        raise _Unsupported()
    checks = []
    kinds = schema.get('type')
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        if not kinds or any(kind not in _TYPES for kind in kinds):
            raise _Unsupported()
        tests = tuple(_TYPES[kind] for kind in kinds)
        checks.append(lambda value: any(test(value) for test in tests))
    checks.extend(_string_checks(schema))
    checks.extend(_object_checks(schema))
    checks.extend(_array_checks(schema))
    if 'enum' in schema:
        enum = schema['enum']
        if (type(enum) is not list or
                any(type(item) is not str for item in enum)):
            raise _Unsupported()
        allowed = frozenset(enum)
        # A string among strings; anything else left to jsonschema.
        checks.append(lambda value: type(value) is str and value in allowed)
    checks = tuple(checks)
    return lambda value: all(check(value) for check in checks)


def _bound(schema, name: str):
    bound = schema.get(name)
    if bound is not None and type(bound) is not int:
        raise _Unsupported()
    return bound


def _string_checks(schema) -> list:
    checks = []
    low, high = _bound(schema, 'minLength'), _bound(schema, 'maxLength')
    if low is not None:
        checks.append(lambda value: type(value) is not str
                      or len(value) >= low)
    if high is not None:
        checks.append(lambda value: type(value) is not str
                      or len(value) <= high)
    if 'pattern' in schema:
        if type(schema['pattern']) is not str:
            raise _Unsupported()
        # As jsonschema: re.search of the pattern, on strings only.
        search = re.compile(schema['pattern']).search
        checks.append(lambda value: type(value) is not str
                      or search(value) is not None)
    return checks


def _object_checks(schema) -> list:
    checks = []
    properties = schema.get('properties')
    if properties is not None:
        if type(properties) is not dict:
            raise _Unsupported()
        compiled = tuple((name, _compile(sub))
                         for name, sub in properties.items())
        checks.append(lambda value: type(value) is not dict or all(
            check(value[name]) for name, check in compiled
            if name in value))
    required = schema.get('required')
    if required is not None:
        if type(required) is not list:
            raise _Unsupported()
        names = tuple(required)
        checks.append(lambda value: type(value) is not dict or all(
            name in value for name in names))
    low, high = (_bound(schema, 'minProperties'),
                 _bound(schema, 'maxProperties'))
    if low is not None:
        checks.append(lambda value: type(value) is not dict
                      or len(value) >= low)
    if high is not None:
        checks.append(lambda value: type(value) is not dict
                      or len(value) <= high)
    if 'additionalProperties' in schema:
        if schema['additionalProperties'] is not False:
            raise _Unsupported()
        known = frozenset(properties or ())
        checks.append(lambda value: type(value) is not dict
                      or value.keys() <= known)
    return checks


def _array_checks(schema) -> list:
    checks = []
    if 'items' in schema:
        check = _compile(schema['items'])
        checks.append(lambda value: type(value) is not list
                      or all(check(item) for item in value))
    low, high = _bound(schema, 'minItems'), _bound(schema, 'maxItems')
    if low is not None:
        checks.append(lambda value: type(value) is not list
                      or len(value) >= low)
    if high is not None:
        checks.append(lambda value: type(value) is not list
                      or len(value) <= high)
    return checks
