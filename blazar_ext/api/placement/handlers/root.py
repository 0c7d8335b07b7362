"""GET /placement/: the version document; GET /placement/openapi.json:
the OpenAPI document."""

import copy

from blazar_ext.api.placement import microversion
from blazar_ext.api.placement import openapi
from blazar_ext.api.placement import wsgi_util


def home(req):
    """The one API version, with the microversion range it serves."""
    body = {'versions': [{
        'id': 'v%d.0' % microversion.MIN_VERSION.major,
        'max_version': '%d.%d' % microversion.MAX_VERSION,
        'min_version': '%d.%d' % microversion.MIN_VERSION,
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }]}
    return wsgi_util.json_response(req, body)


def openapi_document(req):
    """The family's OpenAPI document, its server where it is served
    (/placement in the all-in-one, the root on blazar-ext-placement-api)."""
    body = copy.copy(openapi.document())
    body['servers'] = [{'url': req.script_name or '/'}]
    return wsgi_util.json_response(req, body)
