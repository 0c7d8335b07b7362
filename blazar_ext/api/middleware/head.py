"""HEAD answered on every GET route of the three API families."""

import webob


class HeadAsGet:
    """A HEAD request runs as GET; its answer keeps the status and the
    headers (Content-Length included) and loses the body (RFC 9110).

    The handlers, routers and policies then know GET only, and no family
    can answer HEAD differently from GET.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if environ.get('REQUEST_METHOD') != 'HEAD':
            return self.app(environ, start_response)
        environ['REQUEST_METHOD'] = 'GET'
        try:
            resp = webob.Request(environ).get_response(self.app)
        finally:
            environ['REQUEST_METHOD'] = 'HEAD'
        # webob sends no body when the request's method is HEAD.
        return resp(environ, start_response)
