"""Statuses of leases, reservations and events, in one place.

The values are upstream Blazar's: clients and enforcement services compare
them as strings.
"""


class Lease:
    """A lease's status."""

    CREATING = 'CREATING'
    PENDING = 'PENDING'
    STARTING = 'STARTING'
    ACTIVE = 'ACTIVE'
    UPDATING = 'UPDATING'
    TERMINATING = 'TERMINATING'
    TERMINATED = 'TERMINATED'
    DELETING = 'DELETING'
    ERROR = 'ERROR'

    # A lease in these may still be changed by its owner.
    UPDATABLE = (PENDING, ACTIVE)


class Reservation:
    """A reservation's status (lower case, as Blazar's)."""

    PENDING = 'pending'
    ACTIVE = 'active'
    DELETED = 'deleted'
    ERROR = 'error'


class Event:
    """An event's status, and the event types."""

    UNDONE = 'UNDONE'
    IN_PROGRESS = 'IN_PROGRESS'
    DONE = 'DONE'
    ERROR = 'ERROR'

    START_LEASE = 'start_lease'
    BEFORE_END_LEASE = 'before_end_lease'
    END_LEASE = 'end_lease'
    ORDER = {START_LEASE: 0, BEFORE_END_LEASE: 1, END_LEASE: 2}
