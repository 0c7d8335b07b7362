"""An error answered by shared middleware, in the shape of the API family
the request was for (Blazar v1, Placement or Glance metadefs)."""

import webob

from blazar_ext.api.metadefs import handler as metadefs_handler
from blazar_ext.api.placement import app as placement_app
from blazar_ext.api.placement import error_codes as placement_codes
from blazar_ext.api.v1 import errors as v1_errors


def _placement(req: webob.Request, status: int, title: str,
               message: str) -> webob.Response:
    return placement_app.error_response(req, status, message,
                                        placement_codes.DEFAULT)


def _metadefs(req: webob.Request, status: int, title: str,
              message: str) -> webob.Response:
    return metadefs_handler.error(status, message)


def _v1(req: webob.Request, status: int, title: str,
        message: str) -> webob.Response:
    content_type, body = v1_errors.render(status, title, message)
    return webob.Response(status=status, content_type=content_type,
                          charset='UTF-8', body=body)


# (path prefix, render); the first matching prefix answers, '' matches all.
RENDERERS = [('/placement', _placement), ('/v2', _metadefs), ('', _v1)]
# The placement family alone at the root (blazar-ext-placement-api).
PLACEMENT_RENDERERS = [('', _placement)]
# noauth's identity errors: Placement's shape for Placement, whose
# upstream never answers a 400 in keystonemiddleware's (its document says
# so); the other families keep keystonemiddleware's.
AUTH_RENDERERS = [('/placement', _placement)]
