"""Render the API families' OpenAPI documents in the documentation.

``.. openapi-reference:: FAMILY`` (v1, placement or metadefs) lists every
operation of the family's ``blazar_ext.api.<family>.openapi.document()``:
method and path, summary, notes, query parameters, and a summary of the
request and response schemas. Each document is also written, as JSON, to
``openapi/<family>.json`` in the HTML output, for download.

A family without an ``openapi`` module yet gets a sentence saying so,
not a build failure.
"""

import importlib
import json
import os

from docutils import nodes
from docutils.parsers.rst import Directive

PACKAGES = {'v1': 'blazar_ext.api.v1',
            'placement': 'blazar_ext.api.placement',
            'metadefs': 'blazar_ext.api.metadefs'}
METHODS = ('get', 'head', 'post', 'put', 'patch', 'delete')
OUTPUT_DIR = 'openapi'


def load_document(family: str) -> dict | None:
    """The family's document, or None when it has no openapi module."""
    name = PACKAGES[family] + '.openapi'
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None
    return module.document()


def _documents(app) -> dict:
    if not hasattr(app, 'openapi_documents'):
        app.openapi_documents = {family: load_document(family)
                                 for family in PACKAGES}
    return app.openapi_documents


def _ref_name(ref: str) -> str:
    return ref.rsplit('/', 1)[-1]


def summarize(schema, depth: int = 0) -> str:
    """A one-line reading of a JSON schema."""
    if not isinstance(schema, dict) or not schema:
        return 'any'
    if '$ref' in schema:
        return _ref_name(schema['$ref'])
    for keyword, word in (('oneOf', ' or '), ('anyOf', ' or '),
                          ('allOf', ' and ')):
        if keyword in schema:
            return word.join(summarize(part, depth)
                             for part in schema[keyword])
    if 'enum' in schema:
        return 'one of ' + ', '.join(json.dumps(v) for v in schema['enum'])
    if 'const' in schema:
        return json.dumps(schema['const'])
    kind = schema.get('type', 'any')
    if isinstance(kind, list):
        kind = ' or '.join(kind)
    if kind == 'array':
        return 'array of ' + summarize(schema.get('items'), depth)
    if kind == 'object' and schema.get('properties') and depth < 1:
        required = set(schema.get('required', ()))
        names = ', '.join(name + ('*' if name in required else '')
                          for name in schema['properties'])
        return 'object {%s}' % names
    if schema.get('format'):
        kind += ' (%s)' % schema['format']
    return kind


def _text(text: str) -> list:
    return [nodes.paragraph(text=part.strip())
            for part in text.split('\n\n') if part.strip()]


def _item(*children) -> nodes.list_item:
    item = nodes.list_item()
    item += nodes.paragraph('', '', *children)
    return item


def _property_list(schema: dict) -> nodes.bullet_list | None:
    """One bullet per top-level property of an object schema."""
    properties = (schema or {}).get('properties')
    if not properties:
        return None
    required = set(schema.get('required', ()))
    bullets = nodes.bullet_list()
    for name, sub in properties.items():
        bullets += _item(nodes.literal(text=name),
                         nodes.Text(' (required)' if name in required
                                    else ''),
                         nodes.Text(': ' + summarize(sub)))
    return bullets


def _schema_field(label: str, schema: dict) -> nodes.field:
    body = nodes.field_body()
    body += nodes.paragraph(text=summarize(schema))
    properties = _property_list(schema)
    if properties is not None:
        body += properties
    return nodes.field('', nodes.field_name(text=label), body)


def _parameters_field(parameters: list) -> nodes.field | None:
    bullets = nodes.bullet_list()
    for parameter in parameters:
        where = parameter.get('in')
        bullets += _item(
            nodes.literal(text=parameter['name']),
            nodes.Text(' (%s%s): %s' % (
                where, ', required' if parameter.get('required')
                and where != 'path' else '',
                summarize(parameter.get('schema')))))
    if not parameters:
        return None
    return nodes.field('', nodes.field_name(text='Parameters'),
                       nodes.field_body('', bullets))


def _body_schema(entry: dict) -> dict | None:
    for media in (entry.get('content') or {}).values():
        return media.get('schema')
    return None


def render_operation(method: str, path: str, operation: dict,
                     prefix: str) -> list:
    """The nodes for one operation."""
    title = '%s %s%s' % (method.upper(), prefix, path)
    rubric = nodes.rubric(text=title)
    rubric['ids'].append(nodes.make_id('op ' + operation.get(
        'operationId', title)))
    result = [rubric]
    result += _text(operation.get('summary', ''))
    result += _text(operation.get('description', ''))
    fields = nodes.field_list()
    parameters = _parameters_field(operation.get('parameters', []))
    if parameters is not None:
        fields += parameters
    body = (operation.get('requestBody') or {})
    if _body_schema(body) is not None:
        fields += _schema_field('Request body', _body_schema(body))
    for status, entry in operation.get('responses', {}).items():
        if status in ('4XX', '5XX') or '$ref' in entry:
            continue
        schema = _body_schema(entry)
        if schema is None:
            fields += nodes.field('', nodes.field_name(text=status),
                                  nodes.field_body('', nodes.paragraph(
                                      text='no body')))
        else:
            fields += _schema_field(status, schema)
    if operation.get('security') == []:
        fields += nodes.field('', nodes.field_name(text='Authentication'),
                              nodes.field_body('', nodes.paragraph(
                                  text='none')))
    result.append(fields)
    return result


def render_document(family: str, document: dict) -> list:
    """Download link, the error shape, then every operation."""
    servers = document.get('servers') or [{'url': ''}]
    prefix = servers[0]['url'].rstrip('/')
    link = nodes.reference(text='%s.json' % family,
                           refuri='../%s/%s.json' % (OUTPUT_DIR, family))
    result = [nodes.paragraph('', '', nodes.Text(
        '%s, version %s. The document: ' % (
            document['info']['title'], document['info']['version'])),
        link, nodes.Text('.'))]
    result += _text(document['info'].get('description', ''))
    error = document.get('components', {}).get('schemas', {}).get('Error')
    if error:
        errors = nodes.field_list()
        errors += _schema_field('Errors (4xx, 5xx)', error)
        result.append(errors)
    for path, item in sorted(document['paths'].items()):
        for method in METHODS:
            if method in item:
                result += render_operation(method, path, item[method],
                                           prefix)
    return result


class OpenAPIReference(Directive):
    """``.. openapi-reference:: FAMILY``"""

    required_arguments = 1

    def run(self) -> list:
        family = self.arguments[0]
        if family not in PACKAGES:
            raise self.error('unknown family %r: one of %s'
                             % (family, ', '.join(PACKAGES)))
        env = self.state.document.settings.env
        app = env.app
        # Read again at every build: the documents come from code.
        if not hasattr(env, 'openapi_docnames'):
            env.openapi_docnames = set()
        env.openapi_docnames.add(env.docname)
        document = _documents(app)[family]
        if document is None:
            return [nodes.paragraph(
                text='This build has no OpenAPI document for this family '
                     'yet.')]
        return render_document(family, document)


def write_documents(app, exception) -> None:
    """openapi/<family>.json in the HTML output."""
    if exception is not None or app.builder.format != 'html':
        return
    target = os.path.join(app.outdir, OUTPUT_DIR)
    os.makedirs(target, exist_ok=True)
    for family, document in _documents(app).items():
        if document is not None:
            with open(os.path.join(target, family + '.json'), 'w') as out:
                json.dump(document, out, indent=2, sort_keys=True)


def _outdated(app, env, added, changed, removed) -> list:
    return sorted(getattr(env, 'openapi_docnames', set()) - set(removed))


def _purge(app, env, docname) -> None:
    getattr(env, 'openapi_docnames', set()).discard(docname)


def _merge(app, env, docnames, other) -> None:
    if not hasattr(env, 'openapi_docnames'):
        env.openapi_docnames = set()
    env.openapi_docnames |= getattr(other, 'openapi_docnames', set())


def setup(app) -> dict:
    app.add_directive('openapi-reference', OpenAPIReference)
    app.connect('env-get-outdated', _outdated)
    app.connect('env-purge-doc', _purge)
    app.connect('env-merge-info', _merge)
    app.connect('build-finished', write_documents)
    return {'version': '1.0', 'parallel_read_safe': True,
            'parallel_write_safe': True}
