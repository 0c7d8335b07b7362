"""Policy defaults for placement traits (names as Placement's)."""

from oslo_policy import policy

from blazar_ext.policies import placement_base

TRAITS_LIST = 'placement:traits:list'
TRAITS_SHOW = 'placement:traits:show'
TRAITS_UPDATE = 'placement:traits:update'
TRAITS_DELETE = 'placement:traits:delete'
RESOURCE_PROVIDERS_TRAITS_LIST = 'placement:resource_providers:traits:list'
RESOURCE_PROVIDERS_TRAITS_UPDATE = 'placement:resource_providers:traits:update'
RESOURCE_PROVIDERS_TRAITS_DELETE = 'placement:resource_providers:traits:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=TRAITS_LIST,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='List traits; as Placement.',
        operations=[{'method': 'GET', 'path': '/traits'}]),
    policy.DocumentedRuleDefault(
        name=TRAITS_SHOW,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Check that a trait exists; as Placement.',
        operations=[{'method': 'GET', 'path': '/traits/{name}'}]),
    policy.DocumentedRuleDefault(
        name=TRAITS_UPDATE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Create a custom trait.',
        operations=[{'method': 'PUT', 'path': '/traits/{name}'}]),
    policy.DocumentedRuleDefault(
        name=TRAITS_DELETE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Delete a custom trait.',
        operations=[{'method': 'DELETE', 'path': '/traits/{name}'}]),
    policy.DocumentedRuleDefault(
        name=RESOURCE_PROVIDERS_TRAITS_LIST,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='List the traits of a provider.',
        operations=[{'method': 'GET',
                     'path': '/resource_providers/{uuid}/traits'}]),
    policy.DocumentedRuleDefault(
        name=RESOURCE_PROVIDERS_TRAITS_UPDATE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Set the traits of a provider.',
        operations=[{'method': 'PUT',
                     'path': '/resource_providers/{uuid}/traits'}]),
    policy.DocumentedRuleDefault(
        name=RESOURCE_PROVIDERS_TRAITS_DELETE,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Remove every trait of a provider.',
        operations=[{'method': 'DELETE',
                     'path': '/resource_providers/{uuid}/traits'}]),
]


def list_rules() -> list:
    return rules
