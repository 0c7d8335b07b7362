"""virtual:floatingip reservation details (floatingip_reservations, with
the addresses asked for by name in required_floatingips) and the floating
IPs held (floatingip_allocations).

Called by the virtual:floatingip plugin inside the manager's transaction.
"""

import sqlalchemy as sa

from blazar_ext.db.api import reservation_detail
from blazar_ext.db.models import floatingip as models


class FloatingIPDetails(reservation_detail.DetailTable):
    """With the required addresses, rows of their own."""

    columns = ('network_id', 'amount')

    def after_write(self, session, detail_id: str, spec: dict,
                    created: bool) -> None:
        required = models.RequiredFloatingIP
        if not created:
            session.execute(sa.delete(required).where(
                required.floatingip_reservation_id == detail_id))
        for address in spec.get('required_floatingips', []):
            session.add(required(floatingip_reservation_id=detail_id,
                                 address=address))
        session.flush()

    def add_to_details(self, session, details: dict, ids: dict) -> None:
        required = models.RequiredFloatingIP
        for values in details.values():
            values['required_floatingips'] = []
        for detail_id, address in session.execute(
                sa.select(required.floatingip_reservation_id,
                          required.address)
                .where(required.floatingip_reservation_id.in_(list(ids)))
                .order_by(required.address)):
            details[ids[detail_id]]['required_floatingips'].append(address)

    def before_delete(self, session, detail_ids) -> None:
        required = models.RequiredFloatingIP
        session.execute(sa.delete(required).where(
            required.floatingip_reservation_id.in_(detail_ids)))


DETAILS = FloatingIPDetails(models.FloatingIPReservation,
                            models.FloatingIPAllocation, 'floatingip_id')
