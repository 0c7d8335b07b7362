"""test:widget, a third-party resource type written only against
blazar_ext.plugins.base: its plugin, its model and its entry point
(dist/*.dist-info) live here and nowhere else.

A fixed pool of widgets; a reservation holds ``amount`` of them for the
lease's window. Its tables are on a metadata of its own (a real plugin
would ship them in a migration).
"""

import datetime

from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy import orm

from blazar_ext import exceptions
from blazar_ext.plugins import base

LOG = logging.getLogger(__name__)

RESOURCE_TYPE = 'test:widget'
WIDGETS = ('widget-1', 'widget-2', 'widget-3')


class Base(orm.DeclarativeBase):
    pass


class WidgetReservation(Base):
    __tablename__ = 'test_widget_reservations'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    reservation_id = sa.Column(sa.String(36), nullable=False, unique=True)
    amount = sa.Column(sa.Integer, nullable=False)
    colour = sa.Column(sa.String(20), nullable=False)


class WidgetAllocation(Base):
    __tablename__ = 'test_widget_allocations'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    reservation_id = sa.Column(sa.String(36), nullable=False, index=True)
    widget = sa.Column(sa.String(20), nullable=False)
    start_date = sa.Column(sa.DateTime, nullable=False)
    end_date = sa.Column(sa.DateTime, nullable=False)


# Calls to the lifecycle hooks, for the tests to see.
CALLS: list = []


class WidgetPlugin(base.ResourcePlugin):
    resource_type = RESOURCE_TYPE
    detail_columns = ('amount', 'colour')

    def normalize(self, request: dict, current: dict | None = None,
                  private_visible: bool = False) -> base.Spec:
        merged = dict(current or {})
        merged.update({k: v for k, v in request.items() if v is not None})
        amount = merged.get('amount', 1)
        if isinstance(amount, bool) or not isinstance(amount, int) \
                or not 1 <= amount <= len(WIDGETS):
            raise exceptions.Invalid(
                reason='test:widget reservation: amount must be an integer '
                       'from 1 to %d' % len(WIDGETS))
        colour = merged.get('colour') or 'blue'
        return base.Spec({'resource_type': RESOURCE_TYPE, 'amount': amount,
                          'colour': colour}, parsed=colour.upper())

    def _free(self, session, start, end, exclude=None) -> list:
        alloc = WidgetAllocation
        busy = sa.select(alloc.widget).where(alloc.start_date < end,
                                             alloc.end_date > start)
        if exclude:
            busy = busy.where(alloc.reservation_id != exclude)
        taken = set(session.scalars(busy))
        return [w for w in WIDGETS if w not in taken]

    def _hold(self, session, reservation_id, spec, start, end,
              exclude=None) -> list:
        free = self._free(session, start, end, exclude)
        if len(free) < spec['amount']:
            raise exceptions.NotEnoughResources(
                reason='test:widget reservation needs %d widget(s); %d free'
                       % (spec['amount'], len(free)))
        picked = free[:spec['amount']]
        for widget in picked:
            session.add(WidgetAllocation(
                reservation_id=reservation_id, widget=widget,
                start_date=start, end_date=end))
        session.flush()
        return picked

    def allocate(self, context, session, reservation_id, spec, start, end):
        # The parsed form normalize made reaches here (the test checks).
        CALLS.append(('allocate', spec.parsed))
        return self._hold(session, reservation_id, spec, start, end)

    def reallocate(self, context, session, reservation_id, spec, start,
                   end):
        self.release(session, [reservation_id])
        return self._hold(session, reservation_id, spec, start, end)

    def candidates(self, context, session, spec, start, end,
                   reservation_id=None):
        return self._free(session, start, end,
                          reservation_id)[:spec['amount']]

    def held(self, session, reservation_ids):
        held = {rid: [] for rid in reservation_ids}
        for rid, widget in session.execute(
                sa.select(WidgetAllocation.reservation_id,
                          WidgetAllocation.widget)
                .where(WidgetAllocation.reservation_id.in_(reservation_ids))
                .order_by(WidgetAllocation.widget)):
            held[rid].append(widget)
        return held

    def release(self, session, reservation_ids):
        session.execute(sa.delete(WidgetAllocation).where(
            WidgetAllocation.reservation_id.in_(reservation_ids)))

    def load_resources(self, context, resource_ids):
        return [{'id': w, 'name': w} for w in resource_ids if w in WIDGETS]

    def add_detail(self, session, reservation_id, spec):
        detail = WidgetReservation(reservation_id=reservation_id,
                                   amount=spec['amount'],
                                   colour=spec['colour'])
        session.add(detail)
        session.flush()
        return str(detail.id)

    def update_detail(self, session, reservation_id, spec):
        session.execute(sa.update(WidgetReservation).where(
            WidgetReservation.reservation_id == reservation_id)
            .values(amount=spec['amount'], colour=spec['colour']))

    def details(self, session, reservation_ids):
        return {row.reservation_id: {'amount': row.amount,
                                     'colour': row.colour}
                for row in session.scalars(sa.select(WidgetReservation)
                                           .where(WidgetReservation
                                                  .reservation_id.in_(
                                                      reservation_ids)))}

    def delete_details(self, session, reservation_ids):
        self.release(session, reservation_ids)
        session.execute(sa.delete(WidgetReservation).where(
            WidgetReservation.reservation_id.in_(reservation_ids)))

    def on_start(self, context, reservation):
        CALLS.append(('on_start', reservation['id']))

    def on_end(self, context, reservation):
        CALLS.append(('on_end', reservation['id']))

    def heal(self, session, reservation, lost, start: datetime.datetime,
             end: datetime.datetime) -> dict:
        # Widgets never go out of service; the contract's default would
        # flag them all.
        return {old: None for old in lost}
