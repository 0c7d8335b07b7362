"""Request context shared by the API, the RPC layer and the database."""

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """oslo.context request context that can carry a database transaction."""

    def elevated(self) -> 'RequestContext':
        """Return an admin copy of this context."""
        ctx = self.from_dict(self.to_dict())
        ctx.is_admin = True
        if 'admin' not in ctx.roles:
            ctx.roles = list(ctx.roles) + ['admin']
        return ctx

    @classmethod
    def from_dict(cls, values: dict) -> 'RequestContext':
        return super().from_dict(values)


def get_admin_context() -> RequestContext:
    """Context for the service's own work (event loop, manage commands)."""
    return RequestContext(is_admin=True, roles=['admin'], overwrite=False)
