"""Query-string schemas, one per microversion that changed a query.

Each ``*_QUERY`` maps the first microversion of a shape to its schema;
wsgi_util.query() validates ``dict(req.GET)`` (the last value of a
repeated key, as Placement) against the newest shape the request's
version reaches. Values are strings; their own grammar (resources,
required, member_of) is parsed by query_params afterwards.
"""

import copy

_STRING = {'type': 'string'}
_UUID = {'type': 'string', 'format': 'uuid'}
# Request-group suffixes: digits from 1.25, any short word from 1.33.
_SUFFIX_1_25 = '[1-9][0-9]*'
_SUFFIX_1_33 = '[a-zA-Z0-9_-]{1,64}'


def _extend(schema: dict, **properties) -> dict:
    schema = copy.deepcopy(schema)
    schema['properties'].update(properties)
    return schema


def _versions(first: str, base: dict, *changes) -> dict:
    """{version: schema}, each change applied to the one before it."""
    result = {first: base}
    for version, change in changes:
        base = change(base)
        result[version] = base
    return result


# GET /resource_providers
_RPS_1_0 = {'type': 'object', 'properties': {'name': _STRING, 'uuid': _UUID},
            'additionalProperties': False}
RESOURCE_PROVIDERS_QUERY = _versions(
    '1.0', _RPS_1_0,
    # 1.3: member_of (aggregate uuids, "in:" any of).
    ('1.3', lambda s: _extend(s, member_of=_STRING)),
    # 1.4: resources, providers with capacity for these amounts.
    ('1.4', lambda s: _extend(s, resources=_STRING)),
    # 1.14: in_tree, providers of the tree holding this provider.
    ('1.14', lambda s: _extend(s, in_tree=_UUID)),
    # 1.18: required traits.
    ('1.18', lambda s: _extend(s, required=_STRING)),
)


def _granular(schema: dict, suffix: str, groups) -> dict:
    schema = copy.deepcopy(schema)
    for name in ('resources', 'required', 'member_of', 'in_tree'):
        schema['properties'].pop(name, None)
    schema.pop('required', None)
    schema['patternProperties'] = {
        '^%s(%s)?$' % (name, suffix): _STRING for name in groups}
    return schema


_LIMIT = {'type': ['integer', 'string'], 'pattern': '^[1-9][0-9]*$',
          'minimum': 1, 'minLength': 1}
_AC_1_10 = {'type': 'object', 'properties': {'resources': _STRING},
            'required': ['resources'], 'additionalProperties': False}
ALLOCATION_CANDIDATES_QUERY = _versions(
    '1.10', _AC_1_10,
    # 1.16: limit.
    ('1.16', lambda s: _extend(s, limit=_LIMIT)),
    # 1.17: required traits.
    ('1.17', lambda s: _extend(s, required=_STRING)),
    # 1.21: member_of.
    ('1.21', lambda s: _extend(s, member_of=_STRING)),
    # 1.25: numbered request groups and group_policy.
    ('1.25', lambda s: _extend(
        _granular(s, _SUFFIX_1_25, ('resources', 'required', 'member_of')),
        group_policy={'type': 'string', 'enum': ['none', 'isolate']})),
    # 1.31: in_tree, per group too.
    ('1.31', lambda s: _granular(
        s, _SUFFIX_1_25, ('resources', 'required', 'member_of',
                          'in_tree'))),
    # 1.33: group suffixes may be words.
    ('1.33', lambda s: _granular(
        s, _SUFFIX_1_33, ('resources', 'required', 'member_of',
                          'in_tree'))),
    # 1.35: root_required.
    ('1.35', lambda s: _extend(s, root_required=_STRING)),
    # 1.36: same_subtree.
    ('1.36', lambda s: _extend(s, same_subtree=_STRING)),
)

_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}
USAGES_QUERY = _versions(
    '1.9', {'type': 'object',
            'properties': {'project_id': _ID, 'user_id': _ID},
            'required': ['project_id'], 'additionalProperties': False},
    # 1.38: consumer_type (a type name, or "all" / "unknown").
    ('1.38', lambda s: _extend(s, consumer_type={
        'type': 'string', 'pattern': '^([A-Z_]+|all|unknown)$',
        'minLength': 1, 'maxLength': 255})),
)

TRAITS_QUERY = {'1.6': {'type': 'object',
                        'properties': {'name': _STRING,
                                       'associated': _STRING},
                        'additionalProperties': False}}
