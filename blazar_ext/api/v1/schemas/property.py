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

# Query parameters of the listing; both are booleans.
LIST_QUERY = ('detail', 'all')
