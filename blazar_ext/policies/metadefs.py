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

# Rule names, for the handlers.
GET_NAMESPACES = 'get_metadef_namespaces'
GET_NAMESPACE = 'get_metadef_namespace'
GET_PROPERTIES = 'get_metadef_properties'
GET_PROPERTY = 'get_metadef_property'
GET_OBJECTS = 'get_metadef_objects'
GET_OBJECT = 'get_metadef_object'
GET_TAGS = 'get_metadef_tags'
GET_TAG = 'get_metadef_tag'
LIST_RESOURCE_TYPES = 'list_metadef_resource_types'
GET_RESOURCE_TYPE = 'get_metadef_resource_type'
ADD_NAMESPACE = 'add_metadef_namespace'
MODIFY_NAMESPACE = 'modify_metadef_namespace'
DELETE_NAMESPACE = 'delete_metadef_namespace'
ADD_PROPERTY = 'add_metadef_property'
MODIFY_PROPERTY = 'modify_metadef_property'
REMOVE_PROPERTY = 'remove_metadef_property'
ADD_OBJECT = 'add_metadef_object'
MODIFY_OBJECT = 'modify_metadef_object'
DELETE_OBJECT = 'delete_metadef_object'
ADD_TAG = 'add_metadef_tag'
ADD_TAGS = 'add_metadef_tags'
MODIFY_TAG = 'modify_metadef_tag'
DELETE_TAG = 'delete_metadef_tag'
DELETE_TAGS = 'delete_metadef_tags'
ADD_RESOURCE_TYPE_ASSOCIATION = 'add_metadef_resource_type_association'
REMOVE_RESOURCE_TYPE_ASSOCIATION = 'remove_metadef_resource_type_association'

_READS = [
    (GET_NAMESPACES, 'List namespaces.', [_op(NS, 'GET')]),
    (GET_NAMESPACE, 'Show a namespace.',
     [_op(NS + '/{namespace}', 'GET')]),
    (GET_PROPERTIES, 'List the properties of a namespace.',
     [_op(NS + '/{namespace}/properties', 'GET')]),
    (GET_PROPERTY, 'Show a property.',
     [_op(NS + '/{namespace}/properties/{property}', 'GET')]),
    (GET_OBJECTS, 'List the objects of a namespace.',
     [_op(NS + '/{namespace}/objects', 'GET')]),
    (GET_OBJECT, 'Show an object.',
     [_op(NS + '/{namespace}/objects/{object}', 'GET')]),
    (GET_TAGS, 'List the tags of a namespace.',
     [_op(NS + '/{namespace}/tags', 'GET')]),
    (GET_TAG, 'Show a tag.',
     [_op(NS + '/{namespace}/tags/{tag}', 'GET')]),
    (LIST_RESOURCE_TYPES, 'List resource types.',
     [_op('/v2/metadefs/resource_types', 'GET')]),
    (GET_RESOURCE_TYPE,
     'List the resource type associations of a namespace.',
     [_op(NS + '/{namespace}/resource_types', 'GET')]),
]

_WRITES = [
    (ADD_NAMESPACE, 'Create a namespace.', [_op(NS, 'POST')]),
    (MODIFY_NAMESPACE, 'Update a namespace.',
     [_op(NS + '/{namespace}', 'PUT')]),
    (DELETE_NAMESPACE, 'Delete a namespace.',
     [_op(NS + '/{namespace}', 'DELETE')]),
    (ADD_PROPERTY, 'Create a property.',
     [_op(NS + '/{namespace}/properties', 'POST')]),
    (MODIFY_PROPERTY, 'Update a property.',
     [_op(NS + '/{namespace}/properties/{property}', 'PUT')]),
    (REMOVE_PROPERTY, 'Delete a property or all of them.',
     [_op(NS + '/{namespace}/properties/{property}', 'DELETE'),
      _op(NS + '/{namespace}/properties', 'DELETE')]),
    (ADD_OBJECT, 'Create an object.',
     [_op(NS + '/{namespace}/objects', 'POST')]),
    (MODIFY_OBJECT, 'Update an object.',
     [_op(NS + '/{namespace}/objects/{object}', 'PUT')]),
    (DELETE_OBJECT, 'Delete an object or all of them.',
     [_op(NS + '/{namespace}/objects/{object}', 'DELETE'),
      _op(NS + '/{namespace}/objects', 'DELETE')]),
    (ADD_TAG, 'Create a tag.',
     [_op(NS + '/{namespace}/tags/{tag}', 'POST')]),
    (ADD_TAGS, 'Create or replace several tags.',
     [_op(NS + '/{namespace}/tags', 'POST'),
      _op(NS + '/{namespace}/tags', 'PUT')]),
    (MODIFY_TAG, 'Rename a tag.',
     [_op(NS + '/{namespace}/tags/{tag}', 'PUT')]),
    (DELETE_TAG, 'Delete a tag.',
     [_op(NS + '/{namespace}/tags/{tag}', 'DELETE')]),
    (DELETE_TAGS, 'Delete every tag of a namespace.',
     [_op(NS + '/{namespace}/tags', 'DELETE')]),
    (ADD_RESOURCE_TYPE_ASSOCIATION,
     'Associate a resource type with a namespace.',
     [_op(NS + '/{namespace}/resource_types', 'POST')]),
    (REMOVE_RESOURCE_TYPE_ASSOCIATION,
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
