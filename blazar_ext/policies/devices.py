"""Policies for /v1/devices (the physical:device plugin declares this
module; blazar_ext.policies collects it from there)."""

from oslo_policy import policy

from blazar_ext.policies import base

POLICY_ROOT = 'blazar:devices:%s'
GET = POLICY_ROOT % 'get'
GET_PRIVATE = POLICY_ROOT % 'get_private'
POST = POLICY_ROOT % 'post'
PUT = POLICY_ROOT % 'put'
DELETE = POLICY_ROOT % 'delete'
GET_ALLOCATIONS = POLICY_ROOT % 'get_allocations'
CALENDAR = POLICY_ROOT % 'calendar'

rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN,
        description='List devices or show one.',
        operations=[{'path': '/v1/devices', 'method': 'GET'},
                    {'path': '/v1/devices/{device_id}', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=GET_PRIVATE,
        check_str=base.RULE_ADMIN,
        description='See the private extra capabilities of devices (and '
                    'name them in resource_properties).',
        operations=[{'path': '/v1/devices', 'method': 'GET'},
                    {'path': '/v1/devices/{device_id}', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=POST,
        check_str=base.RULE_ADMIN,
        description='Register a device.',
        operations=[{'path': '/v1/devices', 'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=PUT,
        check_str=base.RULE_ADMIN,
        description='Set a device\'s extra capabilities, or take it out of '
                    'service and back.',
        operations=[{'path': '/v1/devices/{device_id}', 'method': 'PUT'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.RULE_ADMIN,
        description='Unregister a device.',
        operations=[{'path': '/v1/devices/{device_id}',
                     'method': 'DELETE'}]),
    policy.DocumentedRuleDefault(
        name=GET_ALLOCATIONS,
        check_str=base.RULE_ADMIN,
        description='List device allocations.',
        operations=[{'path': '/v1/devices/allocations', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=CALENDAR,
        # As the hosts' calendar: devices and the time taken; lease names
        # only for leases the caller may see.
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='See devices and when they are reserved.',
        operations=[{'path': '/v1/devices/calendar', 'method': 'GET'}]),
]


def list_rules() -> list:
    return rules
