"""The events users may subscribe to: the one place that lists them.

A feature that emits a new event adds one ``register`` call here (or in
its own module, imported by the code that records the event) and calls
``blazar_ext.db.api.outbox.record`` inside the transaction of the change.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class EventType:
    #: The CloudEvents ``type`` and the name subscriptions list.
    name: str
    #: The oslo.messaging notification's event_type; None: webhooks only.
    notification: str | None
    description: str


EVENTS: dict = {}

# Recorded per subscription lead time by the managers, not by a change.
ENDING_SOON = 'lease.ending_soon'


def register(name: str, notification: str | None = None,
             description: str = '') -> EventType:
    """Add an event type (idempotent for the same values)."""
    event = EventType(name, notification, description)
    if EVENTS.get(name, event) != event:
        raise ValueError('event type %s is already registered differently'
                         % name)
    EVENTS[name] = event
    return event


def get(name: str) -> EventType:
    """The registered event type; KeyError for an unknown one."""
    return EVENTS[name]


def names() -> list:
    """Every event name, sorted."""
    return sorted(EVENTS)


register('lease.created', 'lease.create', 'A lease was created (status '
         'PENDING, or ERROR when usage enforcement refused it).')
register('lease.updated', 'lease.update', 'A lease was changed.')
register('lease.deleted', 'lease.delete', 'A lease was deleted.')
register('lease.started', 'lease.event.start_lease', 'A lease started.')
register('lease.before_end', 'lease.event.before_end_lease',
         'A lease\'s before-end actions ran.')
register('lease.ended', 'lease.event.end_lease', 'A lease ended.')
register(ENDING_SOON, None, 'A lease ends within one of the '
         'subscription\'s lead times (one event per lead time).')
register('reservation.healed', 'lease.event.healed',
         'A reservation was moved off a resource out of service.')
register('lease.degraded', 'lease.degraded', 'A reservation of the lease '
         'lost a resource and no replacement fits.')
register('maintenance.scheduled', 'lease.maintenance.scheduled',
         'A maintenance window was scheduled over resources the lease '
         'holds.')
# Lease series (data: the series with its occurrences).
register('series.created', None, 'A lease series was created; '
         '``booked`` lists its occurrences\' lease ids, ``skipped`` the '
         'dates that did not fit (booking: available).')
register('series.extended', None, 'The manager booked the occurrences '
         'of a series entering the booking horizon (``booked``, '
         '``skipped`` as for series.created).')
register('series.updated', None, 'A series was changed; ``updated`` '
         'lists the future occurrences changed, ``failed`` those that '
         'could not be.')
register('series.deleted', None, 'A series was deleted (its future '
         'occurrences each send lease.deleted).')
register('series.occurrence_skipped', None, 'One date of a series was '
         'skipped (``skipped``: its date, start and end).')
# Budgets (data: the budget with credits, spent and balance).
register('budget.adjusted', None, 'An operator added credits to the '
         'budget or took some away (``amount``, ``reason``).')
register('budget.renewed', None, 'The budget\'s period allowance renewed '
         '(recorded by its first charge, refund or adjustment in the new '
         'period; ``amount``: the credits freed).')
register('budget.low', None, 'A charge took the balance below [budgets] '
         'low_balance_percent of the credits (once per crossing).')
