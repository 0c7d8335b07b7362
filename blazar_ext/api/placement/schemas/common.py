"""Fragments shared by several schemas."""

UUID = {'type': 'string', 'format': 'uuid'}
UUID_PATTERN = {'type': 'string',
                'pattern': '^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                           '[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$'}
RESOURCE_CLASS = {'type': 'string', 'pattern': '^[A-Z0-9_]+$',
                  'maxLength': 255}
CUSTOM_RESOURCE_CLASS = {'type': 'string', 'pattern': '^CUSTOM_[A-Z0-9_]+$',
                         'maxLength': 255}
GENERATION = {'type': 'integer'}
