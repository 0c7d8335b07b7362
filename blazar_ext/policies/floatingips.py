"""Policies for /v1/floatingips."""

from oslo_policy import policy

from blazar_ext.policies import base

POLICY_ROOT = 'blazar:floatingips:%s'
GET = POLICY_ROOT % 'get'
CALENDAR = POLICY_ROOT % 'calendar'
POST = POLICY_ROOT % 'post'
DELETE = POLICY_ROOT % 'delete'
GET_ALLOCATIONS = POLICY_ROOT % 'get_allocations'

rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN,
        description='List floating IPs or show one.',
        operations=[{'path': '/v1/floatingips', 'method': 'GET'},
                    {'path': '/v1/floatingips/{floatingip_id}',
                     'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=CALENDAR,
        # The reservation calendar: addresses and the time taken; lease
        # names only for leases the caller may see.
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='See floating IPs and when they are reserved.',
        operations=[{'path': '/v1/floatingips/calendar', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=POST,
        check_str=base.RULE_ADMIN,
        description='Register a floating IP.',
        operations=[{'path': '/v1/floatingips', 'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.RULE_ADMIN,
        description='Unregister a floating IP.',
        operations=[{'path': '/v1/floatingips/{floatingip_id}',
                     'method': 'DELETE'}]),
    policy.DocumentedRuleDefault(
        name=GET_ALLOCATIONS,
        check_str=base.RULE_ADMIN,
        description='List floating IP allocations or show one floating '
                    'IP\'s.',
        operations=[{'path': '/v1/floatingips/allocations', 'method': 'GET'},
                    {'path': '/v1/floatingips/{floatingip_id}/allocation',
                     'method': 'GET'}]),
]


def list_rules() -> list:
    return rules
