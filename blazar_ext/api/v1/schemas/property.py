"""Request schemas for resource properties."""

# Only the visibility can change: a name is the property's identity, so a
# PATCH carrying anything else (a new name, say) is rejected, not ignored.
UPDATE = {
    'type': 'object',
    'properties': {
        'private': {'type': 'boolean'},
    },
    'required': ['private'],
    'additionalProperties': False,
}

# Query parameters of the listing: values, and private properties too.
LIST_QUERY = {
    'type': 'object',
    'properties': {
        'detail': {'type': 'boolean'},
        'all': {'type': 'boolean'},
    },
    'additionalProperties': False,
}
