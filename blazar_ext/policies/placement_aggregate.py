"""Policy defaults for placement aggregates (names as Placement's)."""

from oslo_policy import policy

from blazar_ext.policies import placement_base

LIST = 'placement:resource_providers:aggregates:list'
UPDATE = 'placement:resource_providers:aggregates:update'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='List the aggregates of a provider.',
        operations=[{'method': 'GET',
                     'path': '/resource_providers/{uuid}/aggregates'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Set the aggregates of a provider.',
        operations=[{'method': 'PUT',
                     'path': '/resource_providers/{uuid}/aggregates'}]),
]


def list_rules() -> list:
    return rules
