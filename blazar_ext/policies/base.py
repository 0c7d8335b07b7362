"""Base rules every other policy module builds on."""

from oslo_policy import policy

RULE_ADMIN = 'rule:admin'
RULE_ADMIN_OR_OWNER = 'rule:admin_or_owner'
RULE_ANY = '@'

rules = [
    policy.RuleDefault(
        name='admin',
        check_str='is_admin:True or role:admin',
        description='Default rule for most admin APIs.'),
    policy.RuleDefault(
        name='admin_or_owner',
        check_str='rule:admin or project_id:%(project_id)s',
        description='Default rule for most non-admin APIs.'),
]


def list_rules() -> list:
    return rules
