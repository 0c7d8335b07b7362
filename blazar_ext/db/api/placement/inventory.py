"""Inventories of a provider, and the capacity test as a SQL expression."""

import sqlalchemy as sa

from blazar_ext.db.api import instance_capacity
from blazar_ext.db.api.placement import provider_base
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api import retry
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

INV = models.Inventory
ALLOC = models.Allocation
RC = models.ResourceClass
MAX_INT = 2147483647
DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': MAX_INT,
            'step_size': 1, 'allocation_ratio': 1.0}
FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
          'allocation_ratio')


def used_expression(provider_id, class_id) -> sa.ColumnElement:
    """Correlated SUM(used) of allocations for one provider and class."""
    return sa.func.coalesce(
        sa.select(sa.func.sum(ALLOC.used))
        .where(ALLOC.resource_provider_id == provider_id,
               ALLOC.resource_class_id == class_id)
        .scalar_subquery(), 0)


def fits(inventory, amount: int) -> list:
    """WHERE clauses: ``amount`` can be allocated from ``inventory``.

    capacity = (total - reserved) * allocation_ratio; used + amount must
    not exceed it, and amount must honour min_unit, max_unit, step_size.
    """
    used = used_expression(inventory.resource_provider_id,
                           inventory.resource_class_id)
    return [
        inventory.min_unit <= amount,
        inventory.max_unit >= amount,
        sa.literal(amount) % inventory.step_size == 0,
        (inventory.total - inventory.reserved) * inventory.allocation_ratio
        >= used + amount,
    ]


def has_capacity(provider_id, class_id: int, amount: int):
    """EXISTS an inventory of the class on the provider that fits."""
    inv = sa.orm.aliased(INV)
    return sa.exists().where(inv.resource_provider_id == provider_id,
                             inv.resource_class_id == class_id,
                             *fits(inv, amount))


def capacity(inv: dict) -> int:
    return int((inv['total'] - inv['reserved']) * inv['allocation_ratio'])


def inventories_of(session, provider_ids) -> dict:
    """{provider id: {class name: inventory dict}} in one query."""
    result = {pid: {} for pid in provider_ids}
    if not result:
        return result
    # Plain rows, not ORM objects: this runs for thousands of providers.
    rows = session.connection().execute(
        sa.select(INV.resource_provider_id, RC.name,
                  *[getattr(INV, f) for f in FIELDS])
        .join(RC, RC.id == INV.resource_class_id)
        .where(INV.resource_provider_id.in_(list(result))))
    for row in rows:
        result[row[0]][row[1]] = dict(zip(FIELDS, row[2:]))
    return result


def usages_of(session, provider_ids) -> dict:
    """{provider id: {class name: used}} in one query."""
    result = {pid: {} for pid in provider_ids}
    if not result:
        return result
    rows = session.connection().execute(
        sa.select(ALLOC.resource_provider_id, RC.name,
                  sa.func.sum(ALLOC.used))
        .join(RC, RC.id == ALLOC.resource_class_id)
        .where(ALLOC.resource_provider_id.in_(list(result)))
        .group_by(ALLOC.resource_provider_id, RC.name))
    for pid, name, used in rows:
        result[pid][name] = int(used)
    return result


def _validate(resource_class: str, values: dict, reserved_may_equal: bool):
    if values['reserved'] > values['total'] or (
            not reserved_may_equal and values['total'] > 0
            and values['reserved'] == values['total']):
        raise exceptions.InvalidProviderRequest(
            reason='Unable to update inventory for resource class %s: '
                   'reserved value greater than or equal to total.'
            % resource_class if not reserved_may_equal else
            'Unable to update inventory for resource class %s: '
            'reserved value greater than total.' % resource_class)
    if values['min_unit'] > values['max_unit']:
        raise exceptions.InvalidProviderRequest(
            reason='Unable to update inventory for resource class %s: '
                   'min_unit %d greater than max_unit %d.' % (
                       resource_class, values['min_unit'],
                       values['max_unit']))


def get_inventories(context, uuid: str) -> dict:
    with db_session.reader.using(context) as session:
        provider = provider_base.get_model(session, uuid)
        inventories = inventories_of(session, [provider.id])[provider.id]
        return {'inventories': inventories,
                'resource_provider_generation': provider.generation}


def get_inventory(context, uuid: str, resource_class: str) -> dict:
    result = get_inventories(context, uuid)
    if resource_class not in result['inventories']:
        raise exceptions.InventoryNotFound(resource_class=resource_class,
                                           uuid=uuid)
    inv = dict(result['inventories'][resource_class])
    inv['resource_provider_generation'] = (
        result['resource_provider_generation'])
    return inv


def _in_use(session, provider_id: int, class_ids) -> list:
    if not class_ids:
        return []
    # In class id order, as Placement lists them.
    return list(session.scalars(
        sa.select(RC.name).where(RC.id.in_(list(class_ids)), sa.exists()
                                 .where(ALLOC.resource_provider_id ==
                                        provider_id,
                                        ALLOC.resource_class_id == RC.id))
        .order_by(RC.id)))


@retry.on_deadlock
def set_inventories(context, uuid: str, inventories: dict, generation: int,
                    reserved_may_equal: bool = True) -> dict:
    """Replace all inventories of a provider; bumps its generation."""
    with db_session.writer.using(context) as session:
        provider = provider_base.get_model(session, uuid)
        ids = rc_api.ids_by_name(session, inventories)
        full = {}
        for name, values in inventories.items():
            merged = dict(DEFAULTS, **values)
            _validate(name, merged, reserved_may_equal)
            full[ids[name]] = merged
        provider_base.increment_generation(session, provider, generation,
                                           'inventories')
        existing = dict(session.execute(
            sa.select(INV.resource_class_id, INV.id).where(
                INV.resource_provider_id == provider.id)).all())
        removed = set(existing) - set(full)
        busy = _in_use(session, provider.id, removed)
        if busy:
            raise exceptions.InventoryInUse(
                resource_classes=', '.join(busy), uuid=uuid)
        if removed:
            session.execute(sa.delete(INV).where(
                INV.id.in_([existing[c] for c in removed])))
        added = []
        for class_id, values in full.items():
            values = {f: values[f] for f in FIELDS}
            if class_id in existing:
                session.execute(sa.update(INV).where(
                    INV.id == existing[class_id]).values(**values))
            else:
                added.append(dict(values, resource_provider_id=provider.id,
                                  resource_class_id=class_id))
        if added:
            session.execute(sa.insert(INV), added)
        # Instance reservations read the capacity this gives.
        instance_capacity.refresh(session, [provider.id])
        inventories = inventories_of(session, [provider.id])[provider.id]
        return {'inventories': inventories,
                'resource_provider_generation': provider.generation}


@retry.on_deadlock
def create_inventory(context, uuid: str, resource_class: str, values: dict,
                     reserved_may_equal: bool = True) -> dict:
    with db_session.writer.using(context) as session:
        provider = provider_base.get_model(session, uuid)
        current = inventories_of(session, [provider.id])[provider.id]
        if resource_class in current:
            raise exceptions.InventoryExists(resource_class=resource_class,
                                             uuid=uuid)
        current[resource_class] = values
        set_inventories(context, uuid, current, provider.generation,
                        reserved_may_equal)
        return get_inventory(context, uuid, resource_class)


@retry.on_deadlock
def update_inventory(context, uuid: str, resource_class: str, values: dict,
                     generation: int, reserved_may_equal: bool = True
                     ) -> dict:
    with db_session.writer.using(context) as session:
        provider = provider_base.get_model(session, uuid)
        current = inventories_of(session, [provider.id])[provider.id]
        if resource_class not in current:
            rc_api.ids_by_name(session, [resource_class])
            # As Placement: a stale generation, then bad values, are
            # answered before the missing record.
            if generation != provider.generation:
                raise exceptions.ConcurrentUpdateDetected(
                    what='resource provider generation conflict '
                         '(inventories)')
            _validate(resource_class, dict(DEFAULTS, **values),
                      reserved_may_equal)
            raise exceptions.InventoryNotFound(
                resource_class=resource_class, uuid=uuid)
        current[resource_class] = values
        set_inventories(context, uuid, current, generation,
                        reserved_may_equal)
        return get_inventory(context, uuid, resource_class)


@retry.on_deadlock
def delete_inventory(context, uuid: str, resource_class: str) -> None:
    with db_session.writer.using(context) as session:
        provider = provider_base.get_model(session, uuid)
        current = inventories_of(session, [provider.id])[provider.id]
        if resource_class not in current:
            raise exceptions.InventoryNotFound(
                resource_class=resource_class, uuid=uuid)
        del current[resource_class]
        set_inventories(context, uuid, current, provider.generation)


@retry.on_deadlock
def delete_inventories(context, uuid: str) -> None:
    with db_session.writer.using(context) as session:
        provider = provider_base.get_model(session, uuid)
        set_inventories(context, uuid, {}, provider.generation)
