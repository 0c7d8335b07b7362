"""Policies for maintenance windows (of hosts and floating IPs):
operators only."""

from oslo_policy import policy

from blazar_ext.policies import base

POLICY_ROOT = 'blazar:maintenance:%s'
GET = POLICY_ROOT % 'get'
POST = POLICY_ROOT % 'post'
PATCH = POLICY_ROOT % 'patch'
DELETE = POLICY_ROOT % 'delete'

_HOST = '/v1/os-hosts/{host_id}/maintenance'
_FIP = '/v1/floatingips/{floatingip_id}/maintenance'
_ONES = [path + '/{maintenance_id}' for path in (_HOST, _FIP)]


def _on(paths: list, method: str) -> list:
    return [{'path': path, 'method': method} for path in paths]


rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN,
        description='List maintenance windows or show one.',
        operations=_on(['/v1/maintenance', _HOST, _FIP] + _ONES, 'GET')),
    policy.DocumentedRuleDefault(
        name=POST,
        check_str=base.RULE_ADMIN,
        description='Schedule maintenance on a host or a floating IP (or '
                    'see what it would move, with dry_run).',
        operations=_on([_HOST, _FIP], 'POST')),
    policy.DocumentedRuleDefault(
        name=PATCH,
        check_str=base.RULE_ADMIN,
        description='Move or shorten a maintenance window.',
        operations=_on(_ONES, 'PATCH') + _on(_ONES, 'PUT')),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.RULE_ADMIN,
        description='Cancel a maintenance window.',
        operations=_on(_ONES, 'DELETE')),
]


def list_rules() -> list:
    return rules
