"""Routing, request parsing and responses shared by the metadefs handlers.

Errors are JSON as python-glanceclient reads them: one top-level object
whose ``message`` the client prints, e.g.
``{"error": {"code": 404, "title": "Not Found", "message": "..."}}``.
"""

import datetime
import functools
import urllib.parse

from oslo_log import log as logging
from oslo_serialization import jsonutils
import webob
import webob.dec
import webob.exc

from blazar_ext.api.middleware import auth
from blazar_ext.api.middleware import faults
from blazar_ext.api.middleware import metrics
from blazar_ext.api import routing
from blazar_ext.api import validation
from blazar_ext.db.api.metadefs import base as metadef_base
from blazar_ext.db.api.metadefs import namespace as ns_api
from blazar_ext import exceptions
from blazar_ext.policies import metadefs as rules
from blazar_ext import policy

LOG = logging.getLogger(__name__)

PREFIX = '/v2'


def _not_allowed(methods: list):
    """The handler of a known path under another method: a 405."""
    # A callable: Routes turns plain default values into strings.
    return functools.partial(_method_not_allowed, allowed=methods)


def _method_not_allowed(req: webob.Request, allowed: list,
                        **_: str) -> webob.Response:
    resp = error(405, 'Method %s is not allowed on %s; allowed: %s.'
                 % (req.method, PREFIX + req.path_info, ', '.join(allowed)))
    resp.allow = allowed
    return resp


class Router:
    """Dispatches a request to its handler (blazar_ext.api.routing).

    A path known under other methods is a 405 whose Allow header lists
    them; an unknown path is a 404. One trailing slash is ignored, as
    Glance does.
    """

    def __init__(self, routes_: list):
        self.router = routing.Router(routes_, _not_allowed)
        self.routes = self.router.routes

    @webob.dec.wsgify
    def __call__(self, req: webob.Request):
        problem = validation.url_problem(req)
        if problem:
            return error(400, problem)
        path = req.path_info
        if len(path) > 1 and path.endswith('/'):
            path = path[:-1]
        found = self.router.match(path, req.environ)
        if found is None:
            return error(404, 'No metadefs resource at %s.'
                         % (PREFIX + req.path_info))
        target, match, template = found
        metrics.set_route(req.environ, PREFIX + template)
        try:
            return target(req, **match)
        except exceptions.BlazarExtException as exc:
            return error(exc.status, exc.message)
        except Exception as exc:
            if faults.database_unreachable(exc):
                # A Galera node failing over: the client may try again.
                LOG.warning('Database unreachable for %s %s: %s',
                            req.method, PREFIX + req.path_info,
                            faults.first_line(exc))
                return error(503, faults.message_for(503))
            LOG.exception('Unexpected error on %s %s', req.method,
                          PREFIX + req.path_info)
            return error(500, 'The server failed to handle %s %s; see '
                              'its log for details.'
                         % (req.method, PREFIX + req.path_info))


def error(status: int, message: str) -> webob.Response:
    title = webob.exc.status_map[status].title
    return webob.Response(
        status=status, content_type='application/json', charset='UTF-8',
        json_body={'error': {'code': status, 'title': title,
                             'message': message}})


def _default(value):
    if isinstance(value, datetime.datetime):
        return value.strftime('%Y-%m-%dT%H:%M:%SZ')
    raise TypeError('%r is not JSON serializable' % value)


def respond(body, status: int = 200) -> webob.Response:
    """A JSON response; datetimes in Glance's ISO 8601 form."""
    resp = webob.Response(status=status, content_type='application/json',
                          charset='UTF-8')
    resp.text = jsonutils.dumps(body, default=_default)
    return resp


def no_content() -> webob.Response:
    return webob.Response(status=204, content_type=None)


def context(req: webob.Request):
    return req.environ[auth.CONTEXT_KEY]


def body(req: webob.Request, schema: dict):
    """The JSON body, validated against ``schema``."""
    data = validation.parse_json(req.body)
    validation.validate(schema, data)
    _check_addressable(data, '')
    return data


# Fields whose value names something a URL addresses, one path segment:
# namespaces, objects, properties, tags, resource types.
_NAME_FIELDS = ('namespace', 'name')
# A property's values, free data rather than names.
_FREE_VALUES = ('default', 'enum')


def _check_addressable(data, where: str) -> None:
    """Invalid where a name holds '/': stored, it could never be read,
    changed or deleted again (no path segment holds a '/', %2F is
    decoded before routing). Names are the ``namespace`` and ``name``
    fields and the keys of ``properties`` maps, at any depth."""
    pending = [(data, where)]
    while pending:
        node, where = pending.pop()
        if isinstance(node, list):
            pending.extend((item, '%s/%d' % (where, index))
                           for index, item in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            field = '%s/%s' % (where, key) if where else key
            if (key in _NAME_FIELDS and isinstance(value, str)
                    and '/' in value):
                _refuse_slash(field, value)
            if key == 'properties' and isinstance(value, dict):
                for name in value:
                    if '/' in name:
                        _refuse_slash(field, name)
            if key not in _FREE_VALUES:
                pending.append((value, field))


def _refuse_slash(field: str, name: str):
    raise exceptions.Invalid(
        reason="'%s': %s has a '/', which no URL path segment can hold, so "
               "it could not be read or deleted again; choose a name "
               "without '/'" % (field, exceptions.cut(repr(name), 80)))


def target(namespace: dict) -> dict:
    return {'project_id': namespace['owner'],
            'visibility': namespace['visibility']}


def sees(ctx, namespace: dict) -> bool:
    """Whether the caller can see the namespace at all, whatever the
    policy rules say: a metadefs admin sees every namespace, others the
    public ones and their project's. Glance checks this in its database
    layer, before and apart from policy."""
    return (namespace['visibility'] == 'public'
            or (ctx.project_id is not None
                and namespace['owner'] == ctx.project_id)
            or policy.authorize(ctx, rules.METADEF_ADMIN, do_raise=False))


def visible_namespace(req: webob.Request, name: str,
                      *actions: str) -> dict:
    """The namespace, if the caller sees it, may read it
    (get_metadef_namespace) and may do each of ``actions`` on it.

    As Glance: a namespace the caller does not see or may not read
    answers 404, exactly as a missing one, so its existence does not
    leak; one it may read but not act on answers 403.
    """
    ctx = context(req)
    namespace = ns_api.namespace_get(ctx, name)
    if not sees(ctx, namespace) or not policy.authorize(
            ctx, rules.GET_NAMESPACE, target(namespace), do_raise=False):
        raise metadef_base.not_found(name)
    for action in actions:
        policy.authorize(ctx, action, target(namespace))
    return namespace


# Writes answer as reads do: 404 unseen or unreadable, 403 refused.
writable_namespace = visible_namespace


def allowed(req: webob.Request, namespace: dict, action: str) -> bool:
    """Whether the caller may do ``action`` on ``namespace`` (the policy
    alone), for lists that leave out what a caller may not read."""
    return policy.authorize(context(req), action, target(namespace),
                            do_raise=False)


# What a path segment may hold unquoted (RFC 3986 pchar): the self link
# of OS::Compute::Hypervisor reads as Glance's, a name with / or ? is
# still one segment.
_SEGMENT_SAFE = ":@!$&'()*+,;="


def url(base: str, *names: str) -> str:
    """/v2/<base>/<name>/..., each name quoted as a path segment."""
    return '/'.join([PREFIX, base] + [
        urllib.parse.quote(n, safe=_SEGMENT_SAFE) for n in names])


def strip_read_only(data: dict, keys=('created_at', 'updated_at', 'schema',
                                      'self')) -> dict:
    return {k: v for k, v in data.items() if k not in keys}
