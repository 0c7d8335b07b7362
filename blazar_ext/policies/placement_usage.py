"""Policy defaults for placement usages (names as Placement's)."""

from oslo_policy import policy

from blazar_ext.policies import placement_base

RESOURCE_PROVIDERS_USAGES = 'placement:resource_providers:usages'
USAGES = 'placement:usages'

rules = [
    policy.DocumentedRuleDefault(
        name=RESOURCE_PROVIDERS_USAGES,
        check_str=placement_base.ADMIN_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Usages of a provider.',
        operations=[{'method': 'GET',
                     'path': '/resource_providers/{uuid}/usages'}]),
    policy.DocumentedRuleDefault(
        name=USAGES,
        check_str=placement_base.ADMIN_OR_PROJECT_READER_OR_SERVICE,
        scope_types=placement_base.SCOPE,
        description='Usages of a project or user.',
        operations=[{'method': 'GET', 'path': '/usages'}]),
]


def list_rules() -> list:
    return rules
