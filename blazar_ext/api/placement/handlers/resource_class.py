"""/resource_classes and /resource_classes/{name} (1.2)."""

from blazar_ext.api.placement import error_codes
from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement.schemas import resource_class as schema
from blazar_ext.api.placement import wsgi_util
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext import exceptions
from blazar_ext.policies import placement_resource_class as rules
from blazar_ext import policy


def serialize(req, name: str) -> dict:
    return {'name': name, 'links': [{
        'rel': 'self',
        'href': wsgi_util.url(req, '/resource_classes/%s' % name)}]}


@microversion.version_range('1.2')
def list_classes(req):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.LIST)
    return wsgi_util.json_response(req, {'resource_classes': [
        serialize(req, n) for n in rc_api.list_classes(context)]})


@microversion.version_range('1.2')
def create(req):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.CREATE)
    data = wsgi_util.json_body(req, schema.POST)
    try:
        rc_api.create_class(context, data['name'])
    except exceptions.ResourceClassExists:
        raise errors.HTTPError(
            409, 'Conflicting resource class already exists: %s'
            % data['name'], error_codes.DUPLICATE_NAME)
    return wsgi_util.empty_response(
        201, location=wsgi_util.url(req, '/resource_classes/%s'
                                    % data['name']))


@microversion.version_range('1.2')
def show(req, name):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.SHOW)
    if not rc_api.class_exists(context, name):
        raise exceptions.ResourceClassNotFound(name=name)
    return wsgi_util.json_response(req, serialize(req, name))


def update(req, name):
    """Rename a custom class before 1.7; create-or-check from 1.7."""
    if microversion.at_least(req, '1.7'):
        return _create_or_check(req, name)
    return _rename(req, name)


@microversion.version_range('1.2', '1.6')
def _rename(req, name):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.UPDATE)
    data = wsgi_util.json_body(req, schema.POST)
    try:
        rc_api.rename_class(context, name, data['name'])
    except exceptions.ResourceClassExists:
        raise errors.HTTPError(
            409, 'Resource class already exists: %s' % data['name'],
            error_codes.DUPLICATE_NAME)
    except exceptions.InvalidProviderRequest as exc:
        raise errors.HTTPError(400, str(exc))
    return wsgi_util.json_response(req, serialize(req, data['name']))


def _create_or_check(req, name):
    """Create-or-check a custom class: 201 when created, 204 when known."""
    context = wsgi_util.context(req)
    policy.authorize(context, rules.UPDATE)
    # Placement validates the name as a body; its message says so.
    wsgi_util.validate({'name': name}, schema.POST)
    created = rc_api.create_class(context, name, exist_ok=True)
    return wsgi_util.empty_response(
        201 if created else 204,
        location=wsgi_util.url(req, '/resource_classes/%s' % name))


@microversion.version_range('1.2')
def delete(req, name):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.DELETE)
    try:
        rc_api.delete_class(context, name)
    except exceptions.ResourceClassInUse as exc:
        raise errors.HTTPError(409, 'Error in delete resource class: %s'
                               % exc)
    return wsgi_util.empty_response()
