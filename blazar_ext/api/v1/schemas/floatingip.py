"""Request schemas for /v1/floatingips."""

CREATE = {
    'type': 'object',
    'properties': {
        'floating_network_id': {'type': 'string', 'minLength': 1,
                                'maxLength': 255},
        'floating_ip_address': {'type': 'string', 'minLength': 1,
                                'maxLength': 255},
        'subnet_id': {'type': ['string', 'null'], 'maxLength': 255},
    },
    'required': ['floating_network_id', 'floating_ip_address'],
    'additionalProperties': False,
}
