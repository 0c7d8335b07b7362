"""Policies for the metadefs catalog (/v2/metadefs), with Glance's names.

Reads are allowed to admins, to the owner's project and, for public
namespaces, to everyone; writes are admin only. The target of every check is
the namespace: {'project_id': owner, 'visibility': visibility}. A namespace a
caller may not read is answered with 404, as if it did not exist.
"""

from oslo_policy import policy

from blazar_ext.policies import base

METADEF_ADMIN = 'metadef_admin'
RULE_METADEF_ADMIN = 'rule:metadef_admin'
RULE_READ = 'rule:metadef_read'

NS = '/v2/metadefs/namespaces'


def _op(path: str, method: str) -> dict:
    return {'path': path, 'method': method}


rules = [
    policy.RuleDefault(
        name=METADEF_ADMIN, check_str=base.RULE_ADMIN,
        description='Who administers the metadefs catalog; sees every '
                    'namespace, public or private.'),
    policy.RuleDefault(
        name='metadef_read',
        check_str="rule:metadef_admin or project_id:%(project_id)s or "
                  "'public':%(visibility)s",
        description='Who may read a namespace and what is in it.'),
]

_READS = [
    ('get_metadef_namespaces', 'List namespaces.', [_op(NS, 'GET')]),
    ('get_metadef_namespace', 'Show a namespace.',
     [_op(NS + '/{namespace}', 'GET')]),
    ('get_metadef_properties', 'List the properties of a namespace.',
     [_op(NS + '/{namespace}/properties', 'GET')]),
    ('get_metadef_property', 'Show a property.',
     [_op(NS + '/{namespace}/properties/{property}', 'GET')]),
    ('get_metadef_objects', 'List the objects of a namespace.',
     [_op(NS + '/{namespace}/objects', 'GET')]),
    ('get_metadef_object', 'Show an object.',
     [_op(NS + '/{namespace}/objects/{object}', 'GET')]),
    ('get_metadef_tags', 'List the tags of a namespace.',
     [_op(NS + '/{namespace}/tags', 'GET')]),
    ('get_metadef_tag', 'Show a tag.',
     [_op(NS + '/{namespace}/tags/{tag}', 'GET')]),
    ('list_metadef_resource_types', 'List resource types.',
     [_op('/v2/metadefs/resource_types', 'GET')]),
    ('get_metadef_resource_type',
     'List the resource type associations of a namespace.',
     [_op(NS + '/{namespace}/resource_types', 'GET')]),
]

_WRITES = [
    ('add_metadef_namespace', 'Create a namespace.', [_op(NS, 'POST')]),
    ('modify_metadef_namespace', 'Update a namespace.',
     [_op(NS + '/{namespace}', 'PUT')]),
    ('delete_metadef_namespace', 'Delete a namespace.',
     [_op(NS + '/{namespace}', 'DELETE')]),
    ('add_metadef_property', 'Create a property.',
     [_op(NS + '/{namespace}/properties', 'POST')]),
    ('modify_metadef_property', 'Update a property.',
     [_op(NS + '/{namespace}/properties/{property}', 'PUT')]),
    ('remove_metadef_property', 'Delete a property or all of them.',
     [_op(NS + '/{namespace}/properties/{property}', 'DELETE'),
      _op(NS + '/{namespace}/properties', 'DELETE')]),
    ('add_metadef_object', 'Create an object.',
     [_op(NS + '/{namespace}/objects', 'POST')]),
    ('modify_metadef_object', 'Update an object.',
     [_op(NS + '/{namespace}/objects/{object}', 'PUT')]),
    ('delete_metadef_object', 'Delete an object or all of them.',
     [_op(NS + '/{namespace}/objects/{object}', 'DELETE'),
      _op(NS + '/{namespace}/objects', 'DELETE')]),
    ('add_metadef_tag', 'Create a tag.',
     [_op(NS + '/{namespace}/tags/{tag}', 'POST')]),
    ('add_metadef_tags', 'Create or replace several tags.',
     [_op(NS + '/{namespace}/tags', 'POST'),
      _op(NS + '/{namespace}/tags', 'PUT')]),
    ('modify_metadef_tag', 'Rename a tag.',
     [_op(NS + '/{namespace}/tags/{tag}', 'PUT')]),
    ('delete_metadef_tag', 'Delete a tag.',
     [_op(NS + '/{namespace}/tags/{tag}', 'DELETE')]),
    ('delete_metadef_tags', 'Delete every tag of a namespace.',
     [_op(NS + '/{namespace}/tags', 'DELETE')]),
    ('add_metadef_resource_type_association',
     'Associate a resource type with a namespace.',
     [_op(NS + '/{namespace}/resource_types', 'POST')]),
    ('remove_metadef_resource_type_association',
     'Remove a resource type association.',
     [_op(NS + '/{namespace}/resource_types/{resource_type}', 'DELETE')]),
]

rules += [policy.DocumentedRuleDefault(name=name, check_str=RULE_READ,
                                       description=desc, operations=ops)
          for name, desc, ops in _READS]
rules += [policy.DocumentedRuleDefault(name=name,
                                       check_str=RULE_METADEF_ADMIN,
                                       description=desc, operations=ops)
          for name, desc, ops in _WRITES]


def list_rules() -> list:
    return rules
