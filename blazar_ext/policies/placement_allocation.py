"""Policy defaults for placement allocations (names as Placement's)."""

from oslo_policy import policy

from blazar_ext.policies import placement_base

ALLOCATIONS_LIST = 'placement:allocations:list'
ALLOCATIONS_MANAGE = 'placement:allocations:manage'
ALLOCATIONS_UPDATE = 'placement:allocations:update'
ALLOCATIONS_DELETE = 'placement:allocations:delete'
RESOURCE_PROVIDERS_ALLOCATIONS_LIST = (
    'placement:resource_providers:allocations:list')

rules = [
    policy.DocumentedRuleDefault(
        name=ALLOCATIONS_LIST,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Show the allocations of a consumer.',
        operations=[{'method': 'GET',
                     'path': '/allocations/{consumer_uuid}'}]),
    policy.DocumentedRuleDefault(
        name=ALLOCATIONS_MANAGE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Set allocations of several consumers.',
        operations=[{'method': 'POST', 'path': '/allocations'}]),
    policy.DocumentedRuleDefault(
        name=ALLOCATIONS_UPDATE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Set the allocations of a consumer.',
        operations=[{'method': 'PUT',
                     'path': '/allocations/{consumer_uuid}'}]),
    policy.DocumentedRuleDefault(
        name=ALLOCATIONS_DELETE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Delete the allocations of a consumer.',
        operations=[{'method': 'DELETE',
                     'path': '/allocations/{consumer_uuid}'}]),
    policy.DocumentedRuleDefault(
        name=RESOURCE_PROVIDERS_ALLOCATIONS_LIST,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='List the allocations against a provider.',
        operations=[{'method': 'GET',
                     'path': '/resource_providers/{uuid}/allocations'}]),
]


def list_rules() -> list:
    return rules
