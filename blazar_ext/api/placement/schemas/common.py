"""Fragments shared by several schemas."""

UUID = {'type': 'string', 'format': 'uuid'}
# Dashes optional, as Placement's uuid format (normalized by handlers).
UUID_PATTERN = UUID
UUID_KEY = ('^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
            '[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$')
RESOURCE_CLASS = {'type': 'string', 'pattern': '^[A-Z0-9_]+$',
                  'maxLength': 255}
CUSTOM_RESOURCE_CLASS = {'type': 'string', 'pattern': '^CUSTOM_[A-Z0-9_]+$',
                         'maxLength': 255}
# Integer columns are 32-bit on MariaDB and PostgreSQL, and SQLite refuses
# anything past 64 bits even in a comparison: bound what reaches SQL.
MAX_INT = 2147483647
GENERATION = {'type': 'integer', 'minimum': -MAX_INT - 1,
              'maximum': MAX_INT}
