"""GET /placement/: the version document."""

from blazar_ext.api.placement import microversion
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
