"""GET /versions as Glance answers it, for python-glanceclient.

Without ``--os-image-api-version`` the glance CLI first asks the server's
/versions for a v2 entry. Mount ``app`` at /versions (outside /v2) to make
``glance --os-image-url http://HOST:PORT --os-auth-token TOKEN md-...``
work unchanged.
"""

import webob
import webob.dec

# The Glance API version whose metadefs API this catalog matches.
VERSION = 'v2.16'


@webob.dec.wsgify
def app(req: webob.Request) -> webob.Response:
    if req.method not in ('GET', 'HEAD'):
        resp = webob.Response(
            status=405, content_type='application/json', charset='UTF-8',
            json_body={'error': {'code': 405, 'title': 'Method Not Allowed',
                                 'message': 'Only GET is allowed on '
                                            '/versions.'}})
        resp.allow = ['GET', 'HEAD']
        return resp
    href = req.application_url.rstrip('/') + '/v2/'
    return webob.Response(
        status=200, content_type='application/json', charset='UTF-8',
        json_body={'versions': [{
            'id': VERSION, 'status': 'CURRENT',
            'links': [{'rel': 'self', 'href': href}],
        }]})
