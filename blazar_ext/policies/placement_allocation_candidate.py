"""Policy defaults for placement allocation candidates."""

from oslo_policy import policy

from blazar_ext.policies import base

LIST = 'placement:allocation_candidates:list'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=base.RULE_ADMIN,
        description='List allocation candidates.',
        operations=[{'method': 'GET', 'path': '/allocation_candidates'}]),
]


def list_rules() -> list:
    return rules
