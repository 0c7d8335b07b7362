"""/traits and /traits/{name} (1.6)."""

from blazar_ext.api.placement import error_codes
from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.api.placement.schemas import query as query_schemas
from blazar_ext.api.placement.schemas import trait as schema
from blazar_ext.api.placement import wsgi_util
from blazar_ext.api import validation
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext import exceptions
from blazar_ext.policies import placement_trait as rules
from blazar_ext import policy

INVALID_CUSTOM = ('The trait is invalid. A valid trait must be no longer '
                  'than 255 characters, start with the prefix "CUSTOM_" '
                  'and use following characters: "A"-"Z", "0"-"9" and "_"')


def _bad_query(detail: str):
    return errors.HTTPError(400, detail, error_codes.QUERYPARAM_BAD_VALUE)


def _name_filter(value: str) -> dict:
    """name=in:A,B or name=startswith:PREFIX (starts_with: as the spec)."""
    if value.startswith('in:'):
        names = [n.strip() for n in value[3:].split(',')]
        if not all(names):
            raise _bad_query("Badly formatted name parameter. Expected name "
                             "query string parameter in form: ?name=[in|"
                             "startswith]:[name1,name2|prefix]. Got: "
                             "\"%s\"" % value)
        return {'name_in': names}
    for prefix in ('startswith:', 'starts_with:'):
        if value.startswith(prefix):
            return {'starts_with': value[len(prefix):]}
    raise _bad_query("Badly formatted name parameter. Expected name query "
                     "string parameter in form: ?name=[in|startswith]:"
                     "[name1,name2|prefix]. Got: \"%s\"" % value)


@microversion.version_range('1.6')
def list_traits(req):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.TRAITS_LIST)
    params = wsgi_util.query(req, query_schemas.TRAITS_QUERY)
    filters = {}
    if 'name' in params:
        filters.update(_name_filter(params['name']))
    if 'associated' in params:
        value = params['associated'].lower()
        if value not in ('true', 'false'):
            raise _bad_query('The query parameter "associated" only accepts '
                             '"true" or "false"')
        filters['associated'] = value == 'true'
    return wsgi_util.json_response(req, {
        'traits': trait_api.list_traits(context, **filters)})


@microversion.version_range('1.6')
def show(req, name):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.TRAITS_SHOW)
    if not trait_api.trait_exists(context, name):
        raise exceptions.TraitNotFound(names=name)
    return wsgi_util.empty_response()


@microversion.version_range('1.6')
def create(req, name):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.TRAITS_UPDATE)
    try:
        validation.validate(schema.CUSTOM_TRAIT, name)
    except exceptions.Invalid:
        raise errors.HTTPError(400, INVALID_CUSTOM)
    created = trait_api.create_trait(context, name)
    resp = wsgi_util.empty_response(
        201 if created else 204,
        location=wsgi_util.url(req, '/traits/%s' % name))
    if microversion.at_least(req, '1.15'):
        wsgi_util.no_cache(resp)
    return resp


@microversion.version_range('1.6')
def delete(req, name):
    context = wsgi_util.context(req)
    policy.authorize(context, rules.TRAITS_DELETE)
    trait_api.delete_trait(context, name)
    return wsgi_util.empty_response()
