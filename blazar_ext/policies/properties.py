"""Policies for resource properties (extra capabilities) discovery.

Listing and showing default to admins, as the spec asks: operators open them
to users in policy.yaml once sensitive capabilities are marked private.
"""

from oslo_policy import policy

from blazar_ext.policies import base

POLICY_ROOT = 'blazar:properties:%s'
LIST = POLICY_ROOT % 'list'
GET = POLICY_ROOT % 'get'
UPDATE = POLICY_ROOT % 'update'
GET_PRIVATE = POLICY_ROOT % 'get_private'

_DEPRECATED_REASON = (
    'Upstream Blazar names its host property rules after /v1/os-hosts; '
    'blazar_ext has one set of rules for every resource type')

rules = [
    policy.DocumentedRuleDefault(
        name=LIST,
        check_str=base.RULE_ADMIN,
        description='List the properties of a resource type.',
        operations=[{'path': '/v1/{resource_type}/properties',
                     'method': 'GET'},
                    {'path': '/v1/os-hosts/properties', 'method': 'GET'}],
        deprecated_rule=policy.DeprecatedRule(
            name='blazar:oshosts:get_resource_properties',
            check_str=base.RULE_ADMIN,
            deprecated_reason=_DEPRECATED_REASON,
            deprecated_since='2026.1')),
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN,
        description='Show the values of one property.',
        operations=[{'path': '/v1/{resource_type}/properties/'
                             '{property_name}',
                     'method': 'GET'},
                    {'path': '/v1/os-hosts/properties/{property_name}',
                     'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=GET_PRIVATE,
        check_str=base.RULE_ADMIN,
        description='See private properties: their names and values in '
                    'property listings (with all=true), property details '
                    'and resource bodies. Without it a private property '
                    'is a 403 when asked for by name.',
        operations=[{'path': '/v1/{resource_type}/properties',
                     'method': 'GET'},
                    {'path': '/v1/{resource_type}/properties/'
                             '{property_name}',
                     'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE,
        check_str=base.RULE_ADMIN,
        description='Mark a property private or public.',
        operations=[{'path': '/v1/{resource_type}/properties/'
                             '{property_name}',
                     'method': 'PATCH'},
                    {'path': '/v1/os-hosts/properties/{property_name}',
                     'method': 'PATCH'}],
        deprecated_rule=policy.DeprecatedRule(
            name='blazar:oshosts:patch_resource_properties',
            check_str=base.RULE_ADMIN,
            deprecated_reason=_DEPRECATED_REASON,
            deprecated_since='2026.1')),
]


def list_rules() -> list:
    return rules
