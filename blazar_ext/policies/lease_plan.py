"""Policies for the slot search and extension advice of /v1/leases."""

from oslo_policy import policy

from blazar_ext.policies import base

PLAN = 'blazar:leases:plan'
PLAN_RESOURCES = 'blazar:leases:plan:resources'
EXTENSION = 'blazar:leases:extension'

rules = [
    policy.DocumentedRuleDefault(
        name=PLAN,
        check_str=base.RULE_ANY,
        description='Search for the slots where a lease request fits '
                    '(answers dates only, creates nothing).',
        operations=[{'path': '/v1/leases/plan', 'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=PLAN_RESOURCES,
        check_str=base.RULE_ADMIN,
        description='See, in a slot search, the resources each option '
                    'would take (with_resources).',
        operations=[{'path': '/v1/leases/plan', 'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=EXTENSION,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Ask how far a lease could be extended.',
        operations=[{'path': '/v1/leases/{lease_id}/extension',
                     'method': 'GET'}]),
]


def list_rules() -> list:
    return rules
