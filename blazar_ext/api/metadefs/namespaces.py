"""/metadefs/namespaces: list, create, show, update, delete."""

import urllib.parse

from blazar_ext.api.metadefs import handler
from blazar_ext.api.metadefs import properties
from blazar_ext.api.metadefs import schemas
from blazar_ext.api import routing
from blazar_ext.api import validation
from blazar_ext.db.api.metadefs import namespace as ns_api
from blazar_ext import exceptions
from blazar_ext.policies import metadefs as rules
from blazar_ext import policy

DEFAULT_LIMIT = 25
MAX_LIMIT = 1000
_OPTIONAL = ('display_name', 'description')


def view(namespace: dict, full: bool = False) -> dict:
    """A namespace as the API shows it; unset fields are left out."""
    out = {k: namespace[k] for k in ('namespace', 'visibility', 'protected',
                                     'owner', 'created_at', 'updated_at')}
    for key in _OPTIONAL:
        if namespace.get(key) is not None:
            out[key] = namespace[key]
    if namespace.get('resource_type_associations'):
        out['resource_type_associations'] = namespace[
            'resource_type_associations']
    if full:
        for key in ('properties', 'objects', 'tags'):
            if namespace.get(key):
                out[key] = namespace[key]
    out['schema'] = schemas.schema_url('namespace')
    out['self'] = handler.url('metadefs/namespaces', namespace['namespace'])
    return out


def _list_params(req) -> dict:
    """Validated list filters, with Glance's defaults."""
    query = validation.validate_query(req.GET, schemas.NAMESPACES_QUERY)
    out = {'limit': min(query.get('limit', DEFAULT_LIMIT), MAX_LIMIT),
           'sort_key': query.get('sort_key', 'created_at'),
           'sort_dir': query.get('sort_dir', 'desc')}
    if 'visibility' in query:
        out['visibility'] = query['visibility']
    if query.get('resource_types'):
        out['resource_types'] = [
            r.strip() for r in query['resource_types'].split(',')
            if r.strip()]
    if query.get('marker'):
        out['marker'] = query['marker']
    return out


def visible_to(ctx) -> str | None:
    """None when the caller sees every namespace, else its project."""
    if policy.authorize(ctx, rules.METADEF_ADMIN, do_raise=False):
        return None
    return ctx.project_id or ''


def index(req):
    """GET /metadefs/namespaces."""
    ctx = handler.context(req)
    policy.authorize(ctx, rules.GET_NAMESPACES)
    params = _list_params(req)
    limit = params.pop('limit')
    rows = ns_api.namespace_list(ctx, visible_to=visible_to(ctx),
                                 limit=limit + 1, **params)
    # As Glance: the page leaves out the namespaces get_metadef_namespace
    # refuses, and reading their associations takes
    # list_metadef_resource_types.
    page = [row for row in rows[:limit]
            if handler.allowed(req, row, rules.GET_NAMESPACE)]
    for row in page:
        policy.authorize(ctx, rules.LIST_RESOURCE_TYPES,
                         handler.target(row))
    query = {k: v for k, v in req.GET.items() if k != 'marker'}
    query['limit'] = str(limit)
    base = handler.url('metadefs/namespaces')
    body = {'namespaces': [view(r) for r in page],
            'first': '%s?%s' % (base, urllib.parse.urlencode(query)),
            'schema': schemas.schema_url('namespaces')}
    if len(rows) > limit and limit:
        query['marker'] = rows[limit - 1]['namespace']
        body['next'] = '%s?%s' % (base, urllib.parse.urlencode(query))
    return handler.respond(body)


def _embedded(data: dict) -> dict:
    objects = [handler.strip_read_only(o) for o in data.get('objects', [])]
    for obj in objects:
        obj['properties'] = properties.as_glance_stores(
            obj.get('properties') or {})
    return {
        'properties': properties.as_glance_stores(
            data.get('properties') or {}) or data.get('properties'),
        'objects': objects,
        'tags': [{'name': t['name']} for t in data.get('tags', [])],
        'associations': [
            handler.strip_read_only(a)
            for a in data.get('resource_type_associations', [])],
    }


def create(req):
    """POST /metadefs/namespaces, with embedded definitions if given."""
    ctx = handler.context(req)
    policy.authorize(ctx, rules.ADD_NAMESPACE)
    data = handler.body(req, schemas.NAMESPACE)
    owner = data.get('owner') or ctx.project_id
    if not owner:
        raise exceptions.Invalid(
            reason='the namespace needs an owner: give "owner" in the body '
                   'or authenticate with a project (X-Project-Id)')
    values = {'namespace': data['namespace'], 'owner': owner,
              'visibility': data.get('visibility', 'private'),
              'protected': data.get('protected', False)}
    for key in _OPTIONAL:
        values[key] = data.get(key)
    ns_api.namespace_create(ctx, values, **_embedded(data))
    created = ns_api.namespace_get_full(ctx, values['namespace'])
    body = view(created, full=True)
    # As Glance, the embedded lists sent come back, empty ones as [], and
    # the tags in the order sent.
    for key in ('properties', 'objects', 'tags'):
        if key in data and key not in body:
            body[key] = data[key]
    if data.get('tags'):
        by_name = {t['name']: t for t in body['tags']}
        body['tags'] = [by_name[t['name']] for t in data['tags']
                        if t['name'] in by_name]
    resp = handler.respond(body, status=201)
    resp.location = view(created)['self']
    return resp


def _prefixed(properties: dict, prefix: str) -> dict:
    return {prefix + name: schema for name, schema in properties.items()}


def show(req, namespace: str):
    """GET /metadefs/namespaces/{namespace}[?resource_type=...]."""
    # Glance checks each kind of definition the namespace embeds.
    handler.visible_namespace(req, namespace, rules.LIST_RESOURCE_TYPES,
                              rules.GET_OBJECTS, rules.GET_PROPERTIES,
                              rules.GET_TAGS)
    query = validation.validate_query(req.GET, schemas.RESOURCE_TYPE_QUERY)
    full = ns_api.namespace_get_full(handler.context(req), namespace)
    resource_type = query.get('resource_type')
    if resource_type:
        # Property names as they apply to that resource type.
        prefix = next((a.get('prefix') or ''
                       for a in full['resource_type_associations']
                       if a['name'] == resource_type), '')
        full['properties'] = _prefixed(full['properties'], prefix)
        for obj in full['objects']:
            obj['properties'] = _prefixed(obj['properties'], prefix)
    full['properties'] = properties.as_glance_stores(full['properties'])
    for obj in full['objects']:
        obj['properties'] = properties.as_glance_stores(obj['properties'])
        obj['schema'] = schemas.schema_url('object')
        obj['self'] = handler.url('metadefs/namespaces', namespace,
                                  'objects', obj['name'])
    return handler.respond(view(full, full=True))


def update(req, namespace: str):
    """PUT /metadefs/namespaces/{namespace}: the namespace's own fields.

    Embedded properties, objects, tags and associations in the body are
    ignored (python-glanceclient sends back what it read); fields left out
    keep their values.
    """
    ctx = handler.context(req)
    handler.writable_namespace(req, namespace, rules.MODIFY_NAMESPACE)
    data = handler.body(req, schemas.NAMESPACE)
    values = {k: data[k] for k in ('namespace', 'visibility', 'protected',
                                   'owner', 'display_name', 'description')
              if k in data}
    updated = ns_api.namespace_update(ctx, namespace, values)
    return handler.respond(view(updated))


def delete(req, namespace: str):
    """DELETE /metadefs/namespaces/{namespace}; protected ones are 403."""
    handler.writable_namespace(req, namespace, rules.DELETE_NAMESPACE)
    ns_api.namespace_delete(handler.context(req), namespace)
    return handler.no_content()


ROUTES = [
    routing.Route('GET', '/metadefs/namespaces', index),
    routing.Route('POST', '/metadefs/namespaces', create),
    routing.Route('GET', '/metadefs/namespaces/{namespace}', show),
    routing.Route('PUT', '/metadefs/namespaces/{namespace}', update),
    routing.Route('DELETE', '/metadefs/namespaces/{namespace}', delete),
]
