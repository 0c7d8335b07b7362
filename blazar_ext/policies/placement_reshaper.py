"""Policy default for the placement reshaper (name as Placement's)."""

from oslo_policy import policy

from blazar_ext.policies import placement_base

RESHAPE = 'placement:reshaper:reshape'

rules = [
    policy.DocumentedRuleDefault(
        name=RESHAPE,
        check_str=placement_base.SERVICE,
        scope_types=placement_base.SCOPE,
        description='Move inventories and allocations between providers '
                    'atomically; a service (Nova) does it.',
        operations=[{'method': 'POST', 'path': '/reshaper'}]),
]


def list_rules() -> list:
    return rules
