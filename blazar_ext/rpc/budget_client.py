"""The API's calls to the manager's budget endpoint (RPC namespace
"budgets", version 1.0): budget administration, rates, lease quotes.

Calls go through the ManagerClient's deadline and error handling; in the
all-in-one they go straight to the endpoint in this process.
"""

from blazar_ext.rpc import manager_client

NAMESPACE = 'budgets'
VERSION = '1.0'


class BudgetClient:

    def __init__(self, client: manager_client.ManagerClient):
        self._manager = client

    def _call(self, context, method: str, **kwargs):
        return self._manager._call(context, method, version=VERSION,
                                   namespace=NAMESPACE, **kwargs)

    def create_budget(self, context, values: dict) -> dict:
        return self._call(context, 'create_budget', values=values)

    def adjust_budget(self, context, budget_id: str, amount: str,
                      reason: str) -> dict:
        return self._call(context, 'adjust_budget', budget_id=budget_id,
                          amount=amount, reason=reason)

    def delete_budget(self, context, budget_id: str) -> None:
        return self._call(context, 'delete_budget', budget_id=budget_id)

    def set_rates(self, context, rates: list) -> None:
        return self._call(context, 'set_rates', rates=rates)

    def quote_lease(self, context, values: dict,
                    private_visible: bool = False) -> dict:
        return self._call(context, 'quote_lease', values=values,
                          private_visible=private_visible)


def get_client() -> BudgetClient:
    return BudgetClient(manager_client.get_client())
