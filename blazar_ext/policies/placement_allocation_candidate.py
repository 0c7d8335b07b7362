"""Policy defaults for placement allocation candidates."""

from oslo_policy import policy

from blazar_ext.policies import placement_base

LIST = 'placement:allocation_candidates:list'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='List allocation candidates.',
        operations=[{'method': 'GET', 'path': '/allocation_candidates'}]),
]


def list_rules() -> list:
    return rules
