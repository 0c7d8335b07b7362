"""Policies for host maintenance windows: operators only."""

from oslo_policy import policy

from blazar_ext.policies import base

POLICY_ROOT = 'blazar:maintenance:%s'
GET = POLICY_ROOT % 'get'
POST = POLICY_ROOT % 'post'
PATCH = POLICY_ROOT % 'patch'
DELETE = POLICY_ROOT % 'delete'

_ONE = '/v1/os-hosts/{host_id}/maintenance/{maintenance_id}'
rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN,
        description='List maintenance windows or show one.',
        operations=[{'path': '/v1/maintenance', 'method': 'GET'},
                    {'path': '/v1/os-hosts/{host_id}/maintenance',
                     'method': 'GET'},
                    {'path': _ONE, 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=POST,
        check_str=base.RULE_ADMIN,
        description='Schedule maintenance on a host (or see what it would '
                    'move, with dry_run).',
        operations=[{'path': '/v1/os-hosts/{host_id}/maintenance',
                     'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=PATCH,
        check_str=base.RULE_ADMIN,
        description='Move or shorten a maintenance window.',
        operations=[{'path': _ONE, 'method': 'PATCH'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.RULE_ADMIN,
        description='Cancel a maintenance window.',
        operations=[{'path': _ONE, 'method': 'DELETE'}]),
]


def list_rules() -> list:
    return rules
