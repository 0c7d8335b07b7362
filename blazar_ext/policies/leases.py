"""Policies for /v1/leases."""

from oslo_policy import policy

from blazar_ext.policies import base

POLICY_ROOT = 'blazar:leases:%s'
# Upstream Blazar's name for reading host allocations.
HOST_ALLOCATIONS = 'blazar:oshosts:get_allocations'
GET = POLICY_ROOT % 'get'
POST = POLICY_ROOT % 'post'
PUT = POLICY_ROOT % 'put'
DELETE = POLICY_ROOT % 'delete'
GET_ALL_PROJECTS = POLICY_ROOT % 'get_all_projects'

rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='List leases (a non-admin sees their project\'s) or '
                    'show one lease.',
        operations=[{'path': '/v1/leases', 'method': 'GET'},
                    {'path': '/v1/leases/{lease_id}', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=POST,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Create a lease.',
        operations=[{'path': '/v1/leases', 'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=PUT,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Update a lease.',
        operations=[{'path': '/v1/leases/{lease_id}', 'method': 'PUT'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Delete a lease.',
        operations=[{'path': '/v1/leases/{lease_id}', 'method': 'DELETE'}]),
    policy.DocumentedRuleDefault(
        name=GET_ALL_PROJECTS,
        check_str=base.RULE_ADMIN,
        description='See the leases of every project in lease lists.',
        operations=[{'path': '/v1/leases', 'method': 'GET'}]),
    # Host allocations are lease data seen from the host side.
    policy.DocumentedRuleDefault(
        name=HOST_ALLOCATIONS,
        check_str=base.RULE_ADMIN,
        description='List host allocations or show one host\'s.',
        operations=[{'path': '/v1/os-hosts/allocations', 'method': 'GET'},
                    {'path': '/v1/os-hosts/{host_id}/allocation',
                     'method': 'GET'}]),
]


def list_rules() -> list:
    return rules
