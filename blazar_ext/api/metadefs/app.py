"""The metadefs API family, compatible with Glance's metadefs v2 API.

Mounted at /v2 (the prefix is in SCRIPT_NAME), so routes here start at
/metadefs and /schemas/metadefs. One module per resource.
"""

from blazar_ext.api.metadefs import handler
from blazar_ext.api.metadefs import namespaces
from blazar_ext.api.metadefs import objects
from blazar_ext.api.metadefs import openapi
from blazar_ext.api.metadefs import properties
from blazar_ext.api.metadefs import resource_types
from blazar_ext.api.metadefs import schemas
from blazar_ext.api.metadefs import tags

_MODULES = (namespaces, properties, objects, tags, resource_types, schemas,
            openapi)


def build() -> handler.Router:
    """WSGI app serving every metadefs route."""
    return handler.Router([route for module in _MODULES
                           for route in module.ROUTES])
