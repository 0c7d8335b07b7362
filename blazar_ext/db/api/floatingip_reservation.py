"""virtual:floatingip reservation details (floatingip_reservations and
required_floatingips).

Called by the virtual:floatingip plugin inside the manager's transaction.
"""

import sqlalchemy as sa

from blazar_ext.db.models import floatingip as models


def _require(session, detail_id: str, addresses: list) -> None:
    for address in addresses:
        session.add(models.RequiredFloatingIP(
            floatingip_reservation_id=detail_id, address=address))
    session.flush()


def add(session, reservation_id: str, spec: dict) -> str:
    """Insert the detail row and its required addresses; its id."""
    detail = models.FloatingIPReservation(
        reservation_id=reservation_id, network_id=spec['network_id'],
        amount=spec['amount'])
    session.add(detail)
    session.flush()
    _require(session, detail.id, spec.get('required_floatingips', []))
    return detail.id


def update(session, reservation_id: str, spec: dict) -> None:
    detail = session.scalars(sa.select(models.FloatingIPReservation).where(
        models.FloatingIPReservation.reservation_id == reservation_id)).one()
    detail.network_id = spec['network_id']
    detail.amount = spec['amount']
    session.execute(sa.delete(models.RequiredFloatingIP).where(
        models.RequiredFloatingIP.floatingip_reservation_id == detail.id))
    _require(session, detail.id, spec.get('required_floatingips', []))


def details(session, reservation_ids: list) -> dict:
    """{reservation_id: detail dict}, two Core queries."""
    fip = models.FloatingIPReservation.__table__
    rows = session.execute(
        sa.select(fip.c.id, fip.c.reservation_id, fip.c.network_id,
                  fip.c.amount)
        .where(fip.c.reservation_id.in_(reservation_ids))).all()
    required: dict = {}
    if rows:
        req = models.RequiredFloatingIP
        for fip_res_id, address in session.execute(
                sa.select(req.floatingip_reservation_id, req.address)
                .where(req.floatingip_reservation_id.in_(
                    [r.id for r in rows])).order_by(req.address)):
            required.setdefault(fip_res_id, []).append(address)
    return {row.reservation_id: {
        'network_id': row.network_id, 'amount': row.amount,
        'required_floatingips': required.get(row.id, [])} for row in rows}


def delete(session, reservation_ids: list) -> None:
    """Delete the details, required addresses and allocations."""
    detail_ids = sa.select(models.FloatingIPReservation.id).where(
        models.FloatingIPReservation.reservation_id.in_(reservation_ids))
    session.execute(sa.delete(models.RequiredFloatingIP).where(
        models.RequiredFloatingIP.floatingip_reservation_id.in_(detail_ids)))
    for model in (models.FloatingIPReservation,
                  models.FloatingIPAllocation):
        session.execute(sa.delete(model).where(
            model.reservation_id.in_(reservation_ids)))
