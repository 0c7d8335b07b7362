"""Policies for /v1/budgets, /v1/rates and POST /v1/leases/quote."""

from oslo_policy import policy

from blazar_ext.policies import base

POLICY_ROOT = 'blazar:budgets:%s'
GET = POLICY_ROOT % 'get'
GET_ALL_PROJECTS = POLICY_ROOT % 'get_all_projects'
POST = POLICY_ROOT % 'post'
ADJUST = POLICY_ROOT % 'adjust'
DELETE = POLICY_ROOT % 'delete'
LEDGER = POLICY_ROOT % 'get_ledger'
RATES_GET = 'blazar:rates:get'
RATES_PUT = 'blazar:rates:put'
QUOTE = 'blazar:leases:quote'

rules = [
    policy.DocumentedRuleDefault(
        name=GET,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='List budgets (a non-admin sees their project\'s) or '
                    'show one budget.',
        operations=[{'path': '/v1/budgets', 'method': 'GET'},
                    {'path': '/v1/budgets/{budget_id}', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=GET_ALL_PROJECTS,
        check_str=base.RULE_ADMIN,
        description='See the budgets of every project in budget lists.',
        operations=[{'path': '/v1/budgets', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=POST,
        check_str=base.RULE_ADMIN,
        description='Create a budget.',
        operations=[{'path': '/v1/budgets', 'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=ADJUST,
        check_str=base.RULE_ADMIN,
        description='Add credits to a budget or take them away.',
        operations=[{'path': '/v1/budgets/{budget_id}/adjust',
                     'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name=DELETE,
        check_str=base.RULE_ADMIN,
        description='Delete a budget and its ledger.',
        operations=[{'path': '/v1/budgets/{budget_id}',
                     'method': 'DELETE'}]),
    policy.DocumentedRuleDefault(
        name=LEDGER,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='List the charges, refunds and adjustments of a '
                    'budget.',
        operations=[{'path': '/v1/budgets/{budget_id}/ledger',
                     'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=RATES_GET,
        check_str=base.RULE_ANY,
        description='Show the rates in force.',
        operations=[{'path': '/v1/rates', 'method': 'GET'}]),
    policy.DocumentedRuleDefault(
        name=RATES_PUT,
        check_str=base.RULE_ADMIN,
        description='Replace the rates (when no rates file is configured).',
        operations=[{'path': '/v1/rates', 'method': 'PUT'}]),
    policy.DocumentedRuleDefault(
        name=QUOTE,
        check_str=base.RULE_ADMIN_OR_OWNER,
        description='Price a lease before creating it.',
        operations=[{'path': '/v1/leases/quote', 'method': 'POST'}]),
]


def list_rules() -> list:
    return rules
