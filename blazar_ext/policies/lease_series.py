"""Policies for /v1/lease-series: as for leases, owner or admin."""

from oslo_policy import policy

from blazar_ext.policies import base

POLICY_ROOT = 'blazar:lease_series:%s'
GET = POLICY_ROOT % 'get'
PATCH = POLICY_ROOT % 'patch'
DELETE = POLICY_ROOT % 'delete'
SKIP = POLICY_ROOT % 'skip'
GET_ALL_PROJECTS = POLICY_ROOT % 'get_all_projects'

rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='List lease series (a non-admin sees their '
                    'project\'s) or show one with its occurrences.',
        operations=[{'path': '/v1/lease-series', 'method': 'GET'},
                    {'path': '/v1/lease-series/{series_id}',
                     'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=PATCH,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Change the name or request of a lease series\' '
                    'future occurrences.',
        operations=[{'path': '/v1/lease-series/{series_id}',
                     'method': 'PATCH'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Delete a lease series\' future occurrences.',
        operations=[{'path': '/v1/lease-series/{series_id}',
                     'method': 'DELETE'}]),
    policy.DocumentedRuleDefault(
        name=SKIP,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Skip one date of a lease series.',
        operations=[{'path': '/v1/lease-series/{series_id}/skip',
                     'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=GET_ALL_PROJECTS,
        check_str=base.RULE_ADMIN,
        description='See the lease series of every project in lists.',
        operations=[{'path': '/v1/lease-series', 'method': 'GET'}]),
]


def list_rules() -> list:
    return rules
