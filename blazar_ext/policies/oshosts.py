"""Policies for /v1/os-hosts."""

from oslo_policy import policy

from blazar_ext.policies import base

POLICY_ROOT = 'blazar:oshosts:%s'
GET = POLICY_ROOT % 'get'
AVAILABILITY = POLICY_ROOT % 'availability'
CALENDAR = POLICY_ROOT % 'calendar'
POST = POLICY_ROOT % 'post'
PUT = POLICY_ROOT % 'put'
DELETE = POLICY_ROOT % 'delete'
GET_PRIVATE = POLICY_ROOT % 'get_private'

rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN,
        description='List hosts or show one host.',
        operations=[{'path': '/v1/os-hosts', 'method': 'GET'},
                    {'path': '/v1/os-hosts/{host_id}', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=GET_PRIVATE,
        # One notion of who sees private capabilities, whatever the route.
        check_str='rule:blazar:properties:get_private',
        description='See private extra capabilities in host bodies '
                    '(defaults to blazar:properties:get_private).',
        operations=[{'path': '/v1/os-hosts', 'method': 'GET'},
                    {'path': '/v1/os-hosts/{host_id}', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=AVAILABILITY,
        # Whoever may create a lease may ask when one would fit: the answer
        # holds counts and times, no host names and no other lease.
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Ask when a number of matching hosts are free.',
        operations=[{'path': '/v1/os-hosts/availability',
                     'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=CALENDAR,
        # The reservation calendar: host names, service state and the time
        # taken; lease names only for leases the caller may see.
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='See hosts and when they are reserved.',
        operations=[{'path': '/v1/os-hosts/calendar', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=POST,
        check_str=base.RULE_ADMIN,
        description='Register a host.',
        operations=[{'path': '/v1/os-hosts', 'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=PUT,
        check_str=base.RULE_ADMIN,
        description='Update a host\'s extra capabilities.',
        operations=[{'path': '/v1/os-hosts/{host_id}', 'method': 'PUT'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.RULE_ADMIN,
        description='Unregister a host.',
        operations=[{'path': '/v1/os-hosts/{host_id}', 'method': 'DELETE'}]),
]


def list_rules() -> list:
    return rules
