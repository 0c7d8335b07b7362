"""physical:host reservation details (computehost_reservations).

Called by the physical:host plugin inside the manager's transaction.
"""

import sqlalchemy as sa

from blazar_ext.db.models import lease as models


def _columns(spec: dict) -> dict:
    return {'count_range': '%d-%d' % (spec['min'], spec['max']),
            'hypervisor_properties': spec.get('hypervisor_properties', ''),
            'resource_properties': spec.get('resource_properties', ''),
            'before_end': spec.get('before_end', 'default'),
            'traits': spec.get('traits') or None}


def add(session, reservation_id: str, spec: dict) -> str:
    """Insert the detail row; its id."""
    detail = models.ComputeHostReservation(reservation_id=reservation_id,
                                           **_columns(spec))
    session.add(detail)
    session.flush()
    return detail.id


def update(session, reservation_id: str, spec: dict) -> None:
    detail = models.ComputeHostReservation
    session.execute(sa.update(detail).where(
        detail.reservation_id == reservation_id).values(**_columns(spec)))


def details(session, reservation_ids: list) -> dict:
    """{reservation_id: detail dict}, one Core query (no ORM objects: a
    list of a thousand leases reads them all)."""
    detail = models.ComputeHostReservation.__table__
    out = {}
    for row in session.execute(
            sa.select(detail.c.reservation_id, detail.c.count_range,
                      detail.c.hypervisor_properties,
                      detail.c.resource_properties, detail.c.before_end,
                      detail.c.traits)
            .where(detail.c.reservation_id.in_(reservation_ids))):
        (reservation_id, count_range, hypervisor, resource, before_end,
         traits) = row
        low, _sep, high = (count_range or '').partition('-')
        out[reservation_id] = {
            'min': int(low) if low.isdigit() else None,
            'max': int(high) if high.isdigit() else None,
            'hypervisor_properties': hypervisor or '',
            'resource_properties': resource or '',
            'before_end': before_end or 'default',
            'traits': traits or '',
        }
    return out


def delete(session, reservation_ids: list) -> None:
    """Delete the details and allocations of these reservations."""
    for model in (models.ComputeHostReservation,
                  models.ComputeHostAllocation):
        session.execute(sa.delete(model).where(
            model.reservation_id.in_(reservation_ids)))
