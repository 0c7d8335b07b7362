"""Policy defaults for placement resource providers (names as Placement's)."""

from oslo_policy import policy

from blazar_ext.policies import placement_base

LIST = 'placement:resource_providers:list'
CREATE = 'placement:resource_providers:create'
SHOW = 'placement:resource_providers:show'
UPDATE = 'placement:resource_providers:update'
DELETE = 'placement:resource_providers:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='List resource providers.',
        operations=[{'method': 'GET', 'path': '/resource_providers'}]),
    policy.DocumentedRuleDefault(
        name=CREATE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Create a resource provider.',
        operations=[{'method': 'POST', 'path': '/resource_providers'}]),
    policy.DocumentedRuleDefault(
        name=SHOW,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Show a resource provider.',
        operations=[{'method': 'GET', 'path': '/resource_providers/{uuid}'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Update a resource provider.',
        operations=[{'method': 'PUT', 'path': '/resource_providers/{uuid}'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Delete a resource provider.',
        operations=[{'method': 'DELETE',
                     'path': '/resource_providers/{uuid}'}]),
]


def list_rules() -> list:
    return rules
