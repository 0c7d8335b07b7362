"""Policy for the Prometheus metrics at GET /metrics on the API port.

Admins by default; an operator opens it to the role of a scraper's
account (``"blazar:metrics:get": "role:metrics"``) in policy.yaml.
"""

from oslo_policy import policy

from blazar_ext.policies import base

GET = 'blazar:metrics:get'

rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN,
        description='Read the Prometheus metrics (request counts and '
                    'latencies, leases and reservations by status, '
                    'resources reserved). Not checked when [metrics] port '
                    'serves them on a port of their own.',
        operations=[{'path': '/metrics', 'method': 'GET'}]),
]


def list_rules() -> list:
    return rules
