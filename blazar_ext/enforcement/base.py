"""The interface every usage enforcement filter implements."""

from oslo_config import cfg

from blazar_ext import exceptions


class BaseFilter:
    """One link of the enforcement chain.

    Filters receive the spec's JSON documents as dicts: ``context`` with
    user_id, project_id, auth_url and region_name, and leases with their
    user-set fields, reservations, allocations and extra capabilities (see
    blazar_ext.enforcement.payload). To deny, raise :meth:`reject` (an
    EnforcementRejected); its message is shown to the user. Returning
    allows and passes the request to the next filter.

    A filter is built once when the manager starts, with the configuration;
    it must be safe to call from several threads at once.
    """

    #: Other names the filter may be enabled under (upstream names).
    aliases: tuple = ()

    def __init__(self, conf: cfg.ConfigOpts):
        self.conf = conf

    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def active(self) -> bool:
        """False while the filter's configuration makes it a no-op; the
        chain then skips it (and, if none is active, the payloads)."""
        return True

    def reject(self, message: str) -> exceptions.EnforcementRejected:
        """The exception to raise to deny with ``message``."""
        return exceptions.EnforcementRejected(message, filter_name=self.name)

    def check_create(self, context: dict, lease: dict) -> None:
        """Allow (return) or deny (raise) a new lease."""

    def check_update(self, context: dict, current_lease: dict,
                     lease: dict) -> None:
        """Allow (return) or deny (raise) changing current_lease to lease."""

    def on_end(self, context: dict, lease: dict) -> None:
        """Told that a lease ends, on time or early. Errors are logged."""

    # In the transaction of the lease change (after the allocations are
    # made, before the commit). ``session`` is the manager's; write only
    # through blazar_ext.db. ``lease`` is the manager's lease dict
    # (reservations with their details). Raising (reject) undoes the whole
    # change: a charge or a count made here cannot race the lease.

    def write_create(self, session, context: dict, lease: dict) -> None:
        """The lease has been created and allocated."""

    def write_update(self, session, context: dict, current_lease: dict,
                     lease: dict) -> None:
        """The lease has been changed and reallocated."""

    def write_delete(self, session, context: dict, lease: dict) -> None:
        """The lease is being deleted."""
