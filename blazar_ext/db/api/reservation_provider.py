"""Reservation providers in Placement, as upstream Blazar makes them.

While an instance reservation is active, each host it uses has a child
resource provider (``blazar_<host provider name>``) holding an inventory
of the custom class ``CUSTOM_RESERVATION_<ID>`` with one unit per slot
held there, so a compute scheduler asking for
``resources=CUSTOM_RESERVATION_<ID>:1`` lands on the reserved hosts only.
"""

import sqlalchemy as sa

from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import resource_provider as rp_api
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import placement as models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions

RP = models.ResourceProvider
PREFIX = 'blazar_'


def resource_class(reservation_id: str) -> str:
    """CUSTOM_RESERVATION_<ID upper case, dashes as underscores>."""
    return 'CUSTOM_RESERVATION_%s' % reservation_id.upper().replace('-',
                                                                    '_')


def _hosts(session, reservation_id: str) -> list:
    """(host provider uuid, name, slots) of the reservation's hosts."""
    alloc = instance_models.InstanceAllocation
    host = host_models.ComputeHost
    return session.execute(
        sa.select(RP.uuid, RP.name, alloc.slots)
        .join(host, host.id == alloc.compute_host_id)
        .join(RP, RP.id == host.resource_provider_id)
        .where(alloc.reservation_id == reservation_id)
        .order_by(RP.name)).all()


def _child(context, session, host_uuid: str, host_name: str):
    name = PREFIX + host_name
    child = session.scalar(sa.select(RP).where(RP.name == name))
    if child is None:
        try:
            rp_api.create(context, name=name, parent_uuid=host_uuid)
        except exceptions.ResourceProviderExists:
            pass  # another reservation's start made it meanwhile
        child = session.scalar(sa.select(RP).where(RP.name == name))
    return child


def create(context, reservation_id: str) -> list:
    """Make the reservation's providers and inventories (idempotent: an
    event run again after a crash adds nothing twice); their uuids."""
    name = resource_class(reservation_id)
    rc_api.create_class(context, name, exist_ok=True)
    with db_session.writer.using(context) as session:
        class_id = rc_api.ids_by_name(session, [name])[name]
        uuids = []
        for host_uuid, host_name, slots in _hosts(session, reservation_id):
            child = _child(context, session, host_uuid, host_name)
            inv = models.Inventory
            if session.scalar(sa.select(inv.id).where(
                    inv.resource_provider_id == child.id,
                    inv.resource_class_id == class_id)) is None:
                session.add(inv(
                    resource_provider_id=child.id,
                    resource_class_id=class_id, total=slots, reserved=0,
                    min_unit=1, max_unit=slots, step_size=1,
                    allocation_ratio=1.0))
                session.execute(sa.update(RP).where(RP.id == child.id)
                                .values(generation=RP.generation + 1))
            uuids.append(child.uuid)
        session.flush()
        return uuids


def remove(context, reservation_id: str) -> None:
    """Drop the reservation's inventories (and any allocations against
    them: the lease is over), the providers left empty, and the class."""
    name = resource_class(reservation_id)
    with db_session.writer.using(context) as session:
        class_id = rc_api.ids_by_name_if_present(session, [name]).get(name)
        if class_id is None:
            return
        inv = models.Inventory
        providers = list(session.scalars(sa.select(inv.resource_provider_id)
                                         .where(inv.resource_class_id ==
                                                class_id)))
        session.execute(sa.delete(models.Allocation).where(
            models.Allocation.resource_class_id == class_id))
        session.execute(sa.delete(inv).where(
            inv.resource_class_id == class_id))
        for provider_id in providers:
            session.execute(sa.update(RP).where(RP.id == provider_id)
                            .values(generation=RP.generation + 1))
            empty = ~sa.exists(sa.select(inv.id).where(
                inv.resource_provider_id == provider_id))
            childless = ~sa.exists(sa.select(RP.id).where(
                RP.parent_provider_id == provider_id))
            uuid = session.scalar(sa.select(RP.uuid).where(
                RP.id == provider_id, RP.name.startswith(PREFIX),
                empty, childless))
            if uuid is not None:
                rp_api.delete(context, uuid)
        session.execute(sa.delete(models.ResourceClass).where(
            models.ResourceClass.id == class_id))


def follow(context, reservation_id: str, lost_host_ids: list) -> None:
    """After healing moved an active reservation's slots: the children of
    the ``lost_host_ids`` lose its inventory (and the allocations against
    it: those instances were on a host out of service), and every host it
    holds now has its inventory with one unit per slot."""
    name = resource_class(reservation_id)
    with db_session.writer.using(context) as session:
        class_id = rc_api.ids_by_name_if_present(session, [name]).get(name)
        if class_id is None:
            return  # not started: nothing in Placement yet
        inv = models.Inventory
        host = host_models.ComputeHost
        lost_children = sa.select(RP.id).where(
            RP.parent_provider_id.in_(
                sa.select(host.resource_provider_id).where(
                    host.id.in_(list(lost_host_ids)))),
            RP.name.startswith(PREFIX))
        session.execute(sa.delete(models.Allocation).where(
            models.Allocation.resource_class_id == class_id,
            models.Allocation.resource_provider_id.in_(lost_children)))
        session.execute(sa.delete(inv).where(
            inv.resource_class_id == class_id,
            inv.resource_provider_id.in_(lost_children)))
        for host_uuid, host_name, slots in _hosts(session, reservation_id):
            child = _child(context, session, host_uuid, host_name)
            row = session.scalar(sa.select(inv).where(
                inv.resource_provider_id == child.id,
                inv.resource_class_id == class_id))
            if row is None:
                session.add(inv(
                    resource_provider_id=child.id,
                    resource_class_id=class_id, total=slots, reserved=0,
                    min_unit=1, max_unit=slots, step_size=1,
                    allocation_ratio=1.0))
            elif row.total != slots:
                row.total = row.max_unit = slots
            else:
                continue
            session.execute(sa.update(RP).where(RP.id == child.id)
                            .values(generation=RP.generation + 1))
        session.flush()
