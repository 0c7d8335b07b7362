"""Policies for /v1/subscriptions (webhooks of lifecycle events)."""

from oslo_policy import policy

from blazar_ext.policies import base

POLICY_ROOT = 'blazar:subscriptions:%s'
GET = POLICY_ROOT % 'get'
POST = POLICY_ROOT % 'post'
PATCH = POLICY_ROOT % 'patch'
DELETE = POLICY_ROOT % 'delete'
GET_DELIVERIES = POLICY_ROOT % 'get_deliveries'
ALL_PROJECTS = POLICY_ROOT % 'all_projects'

_ONE = '/v1/subscriptions/{subscription_id}'

rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='List subscriptions (a non-admin sees their '
                    'project\'s) or show one.',
        operations=[{'path': '/v1/subscriptions', 'method': 'GET'},
                    {'path': _ONE, 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=POST,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Subscribe a URL to the lifecycle events of the '
                    'project\'s leases.',
        operations=[{'path': '/v1/subscriptions', 'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=PATCH,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Change a subscription.',
        operations=[{'path': _ONE, 'method': 'PATCH'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Delete a subscription and its delivery log.',
        operations=[{'path': _ONE, 'method': 'DELETE'}]),
    policy.DocumentedRuleDefault(
        name=GET_DELIVERIES,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='See a subscription\'s deliveries: attempts, status '
                    'codes and errors.',
        operations=[{'path': _ONE + '/deliveries', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=ALL_PROJECTS,
        check_str=base.RULE_ADMIN,
        description='Subscribe to the events of every project '
                    '(``all_projects``), and list every project\'s '
                    'subscriptions.',
        operations=[{'path': '/v1/subscriptions', 'method': 'POST'},
                    {'path': '/v1/subscriptions', 'method': 'GET'}]),
]


def list_rules() -> list:
    return rules
