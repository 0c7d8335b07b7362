"""Base rules of the placement-compatible API, as Placement defines them.

Placement's defaults: an admin or the ``service`` role (Nova, Neutron,
Cyborg calling with a service token) may do everything, on project-scoped
tokens only (a system-scoped token is refused); a project reader may read
its own project's usages. With ``[oslo_policy] enforce_new_defaults =
False`` each rule also accepts its deprecated default, ``role:admin``.
"""

from oslo_log import versionutils
from oslo_policy import policy

ADMIN = 'rule:admin_api'
SERVICE = 'rule:service_api'
ADMIN_OR_SERVICE = 'rule:admin_or_service_api'
ADMIN_OR_PROJECT_READER_OR_SERVICE = (
    'rule:admin_or_project_reader_or_service_api')
# Every placement rule takes project-scoped tokens only.
SCOPE = ['project']

_DEPRECATED_ADMIN = policy.DeprecatedRule(
    name=ADMIN, check_str='role:admin',
    deprecated_reason='Placement policies have new default roles with '
                      'scope types (service, project reader).',
    deprecated_since=versionutils.deprecated.WALLABY)

rules = [
    policy.RuleDefault(
        'admin_api', 'role:admin', scope_types=SCOPE,
        description='Default rule for most placement APIs.'),
    policy.RuleDefault(
        'service_api', 'role:service', scope_types=SCOPE,
        deprecated_rule=_DEPRECATED_ADMIN,
        description='Default rule for service-to-service placement APIs.'),
    policy.RuleDefault(
        'admin_or_service_api', 'role:admin or role:service',
        scope_types=SCOPE, deprecated_rule=_DEPRECATED_ADMIN,
        description='Default rule for most placement APIs.'),
    policy.RuleDefault(
        'project_reader_api', 'role:reader and project_id:%(project_id)s',
        deprecated_rule=_DEPRECATED_ADMIN,
        description='Default rule for project level reader APIs.'),
    policy.RuleDefault(
        'admin_or_project_reader_or_service_api',
        'role:admin or rule:project_reader_api or role:service',
        scope_types=SCOPE, deprecated_rule=_DEPRECATED_ADMIN,
        description='Default rule for project level reader APIs.'),
]


def list_rules() -> list:
    return rules
