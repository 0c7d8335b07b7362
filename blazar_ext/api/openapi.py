"""OpenAPI 3.1 documents for the API families, built from the schemas
the code validates with.

A family describes each route it serves as an Operation: the request
body and query schemas are the very objects its handlers pass to
validation (no second copy to drift), the response schemas sit beside
them. ``document`` turns ``{(method, path template): Operation}`` into
an OpenAPI document; ``undocumented`` names the routes a family's route
table serves that the operations miss (a test fails on any);
``response_errors`` checks one response against the document (the
functional tests' conformance check and the property-based run use it).

Paths are written as the family's router matches them, relative to the
family's prefix (the document's ``servers`` entry): ``/v1/leases``,
``/resource_providers/{uuid}``, ``/namespaces/{namespace}``.
"""

import copy
import dataclasses
import re

import jsonschema

OPENAPI_VERSION = '3.1.0'
JSON = 'application/json'


@dataclasses.dataclass(frozen=True)
class Operation:
    """One method on one path: what it accepts and what it answers.

    ``responses`` maps a status code to the JSON schema of its body, or
    to None when the answer has no body (204) or is not JSON. Error
    answers need not be listed: every operation answers 4XX and 5XX in
    the family's error shape. ``query`` is an object schema whose
    properties are the query parameters. ``notes`` is free text for the
    reader (Placement's microversion ranges, policy).
    """

    summary: str
    responses: dict
    request: dict | None = None
    query: dict | None = None
    notes: str = ''
    public: bool = False
    content_type: str = JSON


def document(title: str, version: str, server: str, operations: dict,
             error_schema: dict, description: str = '') -> dict:
    """An OpenAPI 3.1 document of ``operations``
    ({(METHOD, path): Operation}); errors answer ``error_schema``."""
    paths: dict = {}
    for (method, path), operation in sorted(operations.items()):
        paths.setdefault(path or '/', {})[method.lower()] = _operation(
            method, path, operation)
    return {
        'openapi': OPENAPI_VERSION,
        'info': {'title': title, 'version': version,
                 'description': description},
        'servers': [{'url': server}],
        'paths': paths,
        'components': {
            'schemas': {'Error': error_schema},
            'responses': {'Error': {
                'description': 'An error, in the family\'s error shape.',
                'content': {JSON: {'schema': {
                    '$ref': '#/components/schemas/Error'}}}}},
            'securitySchemes': {'token': {
                'type': 'apiKey', 'in': 'header', 'name': 'X-Auth-Token',
                'description': 'A Keystone token (or, with the noauth '
                               'strategy, none).'}},
        },
        'security': [{'token': []}],
    }


def _operation(method: str, path: str, operation: Operation) -> dict:
    result = {
        'operationId': _operation_id(method, path),
        'summary': operation.summary,
        'parameters': _parameters(path, operation.query),
        'responses': {
            str(status): _response(status, schema, operation.content_type)
            for status, schema in sorted(operation.responses.items())},
    }
    result['responses']['4XX'] = {'$ref': '#/components/responses/Error'}
    result['responses']['5XX'] = {'$ref': '#/components/responses/Error'}
    if operation.notes:
        result['description'] = operation.notes
    if operation.public:
        result['security'] = []
    if operation.request is not None:
        result['requestBody'] = {
            'required': True,
            'content': {JSON: {'schema': _schema(operation.request)}}}
    return result


def _operation_id(method: str, path: str) -> str:
    words = re.sub(r'[^A-Za-z0-9]+', '_', path).strip('_')
    if len(path) > 1 and path.endswith('/'):
        # Unique beside the path without the slash (/calendar/).
        words += '_index'
    return '%s_%s' % (method.lower(), words or 'root')


def _parameters(path: str, query: dict | None) -> list:
    parameters = [{'name': name, 'in': 'path', 'required': True,
                   'schema': {'type': 'string'}}
                  for name in path_variables(path)]
    if query:
        required = set(query.get('required', ()))
        for name, schema in query.get('properties', {}).items():
            parameters.append({'name': name, 'in': 'query',
                               'required': name in required,
                               'schema': _schema(schema)})
    return parameters


def _response(status: int, schema: dict | None, content_type: str) -> dict:
    response = {'description': _DESCRIPTIONS.get(status, 'Success.')}
    if schema is not None:
        response['content'] = {content_type: {'schema': _schema(schema)}}
    return response


_DESCRIPTIONS = {200: 'OK.', 201: 'Created.', 202: 'Accepted.',
                 204: 'No content.'}


def _schema(schema: dict) -> dict:
    """A copy safe to embed: ``$schema`` and ``$id`` dropped (the
    document's dialect is JSON Schema 2020-12 already)."""
    schema = copy.deepcopy(schema)
    schema.pop('$schema', None)
    schema.pop('$id', None)
    return schema


def path_variables(path: str) -> list:
    """The ``{name}`` parts of a path template, in order."""
    return re.findall(r'{([^}]+)}', path)


def undocumented(routes, operations: dict) -> list:
    """(method, path) of each route in ``routes`` (objects with
    ``method`` and ``pattern``) that ``operations`` does not describe
    with at least one response schema entry."""
    return sorted({(route.method, route.pattern) for route in routes
                   if not operations.get((route.method, route.pattern),
                                         Operation('', {})).responses})


def _template_regex(path: str) -> re.Pattern:
    parts = re.split(r'({[^}]+})', path)
    return re.compile('^' + ''.join(
        '[^/]+' if part.startswith('{') else re.escape(part)
        for part in parts) + '$')


def find(doc: dict, method: str, path: str) -> tuple | None:
    """(template, operation object) of ``doc`` serving ``method`` on the
    concrete ``path``; a template with fewer variables wins, as routers
    match literal segments first."""
    matches = [(len(path_variables(template)), template, item)
               for template, item in doc['paths'].items()
               if method.lower() in item
               and _template_regex(template).match(path)]
    if not matches:
        return None
    _, template, item = min(matches, key=lambda match: match[:2])
    return template, item[method.lower()]


def response_errors(doc: dict, method: str, path: str, status: int,
                    body, content_type: str | None = None) -> list:
    """Why a response does not match ``doc``: [] when it does.

    ``path`` is relative to the document's server; ``body`` is the decoded
    JSON (None when there is none). With ``content_type``, a body of
    another media type than JSON must be one the document lists.
    """
    found = find(doc, method, path)
    if found is None:
        return ['%s %s is not in the document' % (method, path)]
    template, operation = found
    responses = operation['responses']
    entry = responses.get(str(status)) or responses.get(
        '%dXX' % (status // 100))
    if entry is None:
        return ['%s %s answered %d, which the document does not list'
                % (method, template, status)]
    entry = _resolve(doc, entry)
    where = '%s %s %d' % (method, template, status)
    other = _other_media(entry, content_type, where)
    if other is not None:
        return other
    schema = entry.get('content', {}).get(JSON, {}).get('schema')
    if schema is None:
        # No body, or not JSON (HTML, plain text): nothing to validate.
        return []
    return _schema_errors(doc, schema, body, where)


def _other_media(entry: dict, content_type: str | None,
                 where: str) -> list | None:
    """For a body that is not JSON: [] when ``entry`` lists its media
    type, else why not; None for JSON (or no type given: validate)."""
    media = (content_type or '').split(';')[0].strip().lower()
    if content_type is None or not entry.get('content') or 'json' in media:
        return None
    if media in entry['content']:
        return []
    return ['%s: answered %s, which the document does not list'
            % (where, media or 'no content type')]


def error_shape_errors(doc: dict, body,
                       content_type: str | None = None) -> list:
    """Why ``body`` is not in the document's error shape."""
    other = _other_media(doc['components']['responses']['Error'],
                         content_type, 'error')
    if other is not None:
        return other
    return _schema_errors(doc, {'$ref': '#/components/schemas/Error'}, body,
                          'error')


def _schema_errors(doc: dict, schema: dict, body, where: str) -> list:
    validator = jsonschema.Draft202012Validator(
        {**_resolve_schema(doc, schema),
         'components': doc.get('components', {})})
    return ['%s: %s at /%s' % (
        where, error.message,
        '/'.join(str(part) for part in error.absolute_path))
        for error in validator.iter_errors(body)]


def _resolve(doc: dict, entry: dict) -> dict:
    ref = entry.get('$ref')
    if ref is None:
        return entry
    node = doc
    for part in ref.lstrip('#/').split('/'):
        node = node[part]
    return node


def _resolve_schema(doc: dict, schema: dict) -> dict:
    return _resolve(doc, schema) if '$ref' in schema else schema
