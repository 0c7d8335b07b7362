"""Policy defaults for placement resource classes (names as Placement's)."""

from oslo_policy import policy

from blazar_ext.policies import placement_base

LIST = 'placement:resource_classes:list'
CREATE = 'placement:resource_classes:create'
SHOW = 'placement:resource_classes:show'
UPDATE = 'placement:resource_classes:update'
DELETE = 'placement:resource_classes:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='List resource classes.',
        operations=[{'method': 'GET', 'path': '/resource_classes'}]),
    policy.DocumentedRuleDefault(
        name=CREATE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Create a custom resource class.',
        operations=[{'method': 'POST', 'path': '/resource_classes'}]),
    policy.DocumentedRuleDefault(
        name=SHOW,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Show a resource class.',
        operations=[{'method': 'GET', 'path': '/resource_classes/{name}'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Create or validate a custom resource class.',
        operations=[{'method': 'PUT', 'path': '/resource_classes/{name}'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Delete a custom resource class.',
        operations=[{'method': 'DELETE', 'path': '/resource_classes/{name}'}]),
]


def list_rules() -> list:
    return rules
