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
