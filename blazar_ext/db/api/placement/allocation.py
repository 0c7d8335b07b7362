"""Consumers' allocations against providers' inventories."""

import sqlalchemy as sa

from blazar_ext.db.api.placement import inventory as inv_api
from blazar_ext.db.api.placement import provider_base
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api import retry
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

ALLOC = models.Allocation
CONSUMER = models.Consumer
RC = models.ResourceClass
RP = models.ResourceProvider
_RETRIES = 10


class _ProviderRace(exceptions.ConcurrentUpdateDetected):
    """A provider generation moved under us: safe to retry from scratch."""


def get_consumer_allocations(context, consumer_uuid: str) -> dict:
    with db_session.reader.using(context) as session:
        consumer = session.scalar(sa.select(CONSUMER).where(
            CONSUMER.uuid == consumer_uuid))
        rows = session.execute(
            sa.select(RP.uuid, RP.generation, RC.name, ALLOC.used)
            .join(RP, RP.id == ALLOC.resource_provider_id)
            .join(RC, RC.id == ALLOC.resource_class_id)
            .where(ALLOC.consumer_id == consumer_uuid))
        allocations = {}
        for rp_uuid, generation, rc_name, used in rows:
            entry = allocations.setdefault(
                rp_uuid, {'generation': generation, 'resources': {}})
            entry['resources'][rc_name] = used
        return {'allocations': allocations,
                'project_id': consumer.project_id if consumer else None,
                'user_id': consumer.user_id if consumer else None,
                'consumer_generation': (consumer.generation if consumer
                                        else None),
                'consumer_type': consumer.consumer_type if consumer else None}


def get_provider_allocations(context, uuid: str) -> dict:
    with db_session.reader.using(context) as session:
        provider = provider_base.get_model(session, uuid)
        rows = session.execute(
            sa.select(ALLOC.consumer_id, RC.name, ALLOC.used)
            .join(RC, RC.id == ALLOC.resource_class_id)
            .where(ALLOC.resource_provider_id == provider.id))
        allocations = {}
        for consumer, rc_name, used in rows:
            allocations.setdefault(consumer, {'resources': {}})[
                'resources'][rc_name] = used
        return {'allocations': allocations,
                'resource_provider_generation': provider.generation}


def _json(value) -> str:
    return 'null' if value is None else str(value)


def _consumer(session, uuid: str, request: dict) -> tuple:
    """(consumer row, whether it is new), its generation checked and
    moved on."""
    consumer = session.scalar(sa.select(CONSUMER).where(
        CONSUMER.uuid == uuid))
    if request.get('check_generation'):
        expected = request.get('consumer_generation')
        actual = consumer.generation if consumer else None
        if expected != actual:
            raise exceptions.ConcurrentUpdateDetected(
                what='consumer generation conflict - expected %s but got %s'
                % (_json(actual), _json(expected)))
    if consumer is None:
        # As Placement: a consumer is made at 0 and its first write moves
        # it to 1, which the next PUT must send.
        consumer = CONSUMER(uuid=uuid, generation=1,
                            project_id=request['project_id'],
                            user_id=request['user_id'],
                            consumer_type=request.get('consumer_type'))
        session.add(consumer)
        session.flush()
        return consumer, True
    consumer.project_id = request['project_id']
    consumer.user_id = request['user_id']
    if request.get('consumer_type'):
        consumer.consumer_type = request['consumer_type']
    consumer.generation = consumer.generation + 1
    return consumer, False


def _has_allocations(session, consumer_uuid: str) -> bool:
    """Allocations without a consumer row (written by other tools)."""
    return session.scalar(sa.select(sa.exists().where(
        ALLOC.consumer_id == consumer_uuid)))


class ConstraintViolated(exceptions.InvalidProviderRequest):
    """An amount breaking min_unit, max_unit or step_size: bad input for
    PUT /allocations, a conflict inside a reshape (Placement's statuses)."""


def _check_capacity(session, provider, class_ids: dict) -> None:
    """Every class allocated on ``provider`` fits its inventory."""
    inventories = inv_api.inventories_of(session, [provider.id])[provider.id]
    usages = inv_api.usages_of(session, [provider.id])[provider.id]
    for name in class_ids:
        inv = inventories.get(name)
        if inv is None:
            raise _no_inventory(name, provider.uuid)
        if usages.get(name, 0) > inv_api.capacity(inv):
            raise exceptions.InsufficientCapacity(
                reason="Unable to create allocation for '%s' on resource "
                       "provider '%s'. The requested amount would exceed "
                       "the capacity." % (name, provider.uuid))


def _no_inventory(name: str, uuid: str) -> Exception:
    """A class the provider has no inventory of: a conflict, as Placement
    answers (the inventory may come later), not bad input."""
    return exceptions.InsufficientCapacity(
        reason="Inventory for '%s' on resource provider '%s' invalid."
        % (name, uuid))


def _check_amount(session, provider_id: int, uuid: str, name: str,
                  class_id: int, amount: int) -> None:
    inv = session.scalar(sa.select(inv_api.INV).where(
        inv_api.INV.resource_provider_id == provider_id,
        inv_api.INV.resource_class_id == class_id))
    if inv is None:
        raise _no_inventory(name, uuid)
    if (amount < inv.min_unit or amount > inv.max_unit
            or amount % inv.step_size):
        raise ConstraintViolated(
            reason="Unable to allocate inventory: Allocation of %d %s on "
                   "resource provider '%s' violates min_unit, max_unit, "
                   "or step_size." % (amount, name, uuid))


def _lock_providers(session, requests: dict) -> dict:
    """The providers the requests allocate from, by uuid, locked in id
    order: writers of one provider take turns instead of racing for its
    generation. Run first, so that on MySQL the transaction's snapshot
    is taken after the lock and sees the last writer's allocations."""
    uuids = {rp_uuid for request in requests.values()
             for rp_uuid in request['allocations']}
    if not uuids:
        return {}
    return {provider.uuid: provider for provider in session.scalars(
        sa.select(RP).where(RP.uuid.in_(sorted(uuids)))
        .order_by(RP.id).with_for_update())}


def _replace(context, requests: dict) -> None:
    with db_session.writer.using(context) as session:
        providers = _lock_providers(session, requests)
        names = {name for req in requests.values()
                 for resources in req['allocations'].values()
                 for name in resources}
        try:
            class_ids = rc_api.ids_by_name(session, names)
        except exceptions.ResourceClassNotFound as exc:
            raise exceptions.InvalidProviderRequest(
                reason='Unable to allocate inventory for consumer %s: %s'
                % (', '.join(sorted(requests)), exc))
        touched = {}
        for consumer_uuid, request in requests.items():
            consumer, is_new = _consumer(session, consumer_uuid, request)
            if not is_new or _has_allocations(session, consumer_uuid):
                # Not for a new consumer: on MySQL, a DELETE matching
                # nothing locks the index gap that other consumers'
                # allocations go into, a deadlock with their writers.
                session.execute(sa.delete(ALLOC).where(
                    ALLOC.consumer_id == consumer_uuid))
            for rp_uuid, resources in request['allocations'].items():
                provider = providers.get(rp_uuid)
                if provider is None:
                    raise exceptions.InvalidProviderRequest(
                        reason="Allocation for resource provider '%s' that "
                               "does not exist." % rp_uuid)
                touched[provider.id] = (provider, provider.generation,
                                        set(resources))
                for name, amount in resources.items():
                    _check_amount(session, provider.id, rp_uuid, name,
                                  class_ids[name], amount)
                    session.add(ALLOC(resource_provider_id=provider.id,
                                      consumer_id=consumer_uuid,
                                      resource_class_id=class_ids[name],
                                      used=amount))
            if not request['allocations']:
                session.delete(consumer)
        session.flush()
        for provider, generation, names in touched.values():
            _check_capacity(session, provider, names)
            try:
                provider_base.increment_generation(session, provider,
                                                   generation, 'allocations')
            except exceptions.ConcurrentUpdateDetected:
                raise _ProviderRace(what='allocations')


@retry.on_deadlock
def replace_allocations(context, requests: dict) -> None:
    """Set the allocations of one or more consumers atomically.

    ``requests`` maps consumer uuid to {'allocations': {provider uuid:
    {class: amount}}, 'project_id', 'user_id', 'consumer_generation',
    'check_generation', 'consumer_type'}. Retried when only a provider
    generation raced, as capacity is re-checked from scratch each time.
    """
    for attempt in range(_RETRIES):
        try:
            return _replace(context, requests)
        except _ProviderRace:
            if attempt == _RETRIES - 1:
                raise


@retry.on_deadlock
def delete_allocations(context, consumer_uuid: str) -> None:
    with db_session.writer.using(context) as session:
        deleted = session.execute(sa.delete(ALLOC).where(
            ALLOC.consumer_id == consumer_uuid)).rowcount
        session.execute(sa.delete(CONSUMER).where(
            CONSUMER.uuid == consumer_uuid))
        if not deleted:
            raise exceptions.AllocationsNotFound(consumer=consumer_uuid)


def replace_in_transaction(context, requests: dict) -> None:
    """replace_allocations() inside the caller's writer transaction (the
    reshaper's), so it is not retried on its own."""
    _replace(context, requests)
