"""Policy defaults for placement inventories (names as Placement's)."""

from oslo_policy import policy

from blazar_ext.policies import placement_base

LIST = 'placement:resource_providers:inventories:list'
CREATE = 'placement:resource_providers:inventories:create'
SHOW = 'placement:resource_providers:inventories:show'
UPDATE = 'placement:resource_providers:inventories:update'
DELETE = 'placement:resource_providers:inventories:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='List inventories of a provider.',
        operations=[{'method': 'GET',
                     'path': '/resource_providers/{uuid}/inventories'}]),
    policy.DocumentedRuleDefault(
        name=CREATE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Create one inventory.',
        operations=[{'method': 'POST',
                     'path': '/resource_providers/{uuid}/inventories'}]),
    policy.DocumentedRuleDefault(
        name=SHOW,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Show one inventory.',
        operations=[{'method': 'GET',
                     'path': '/resource_providers/{uuid}/inventories/'
                             '{resource_class}'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Replace or update inventories.',
        operations=[{'method': 'PUT',
                     'path': '/resource_providers/{uuid}/inventories'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Delete inventories.',
        operations=[{'method': 'DELETE',
                     'path': '/resource_providers/{uuid}/inventories'}]),
]


def list_rules() -> list:
    return rules
