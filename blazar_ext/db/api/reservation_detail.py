"""The detail rows of a reservation type, and the allocations it holds.

Each reservation type keeps one detail row per reservation in a table of
its own (computehost_reservations, floatingip_reservations,
instance_reservations: models on db/models/base.ReservationDetailMixin)
and its allocations in another (one row per resource held, with the
reservation's id). ``DetailTable`` is their CRUD, written once; a type
says how a request maps to its columns and back, and adds rows of its own
(floating IPs' required addresses) through the hooks. Called by the
plugins inside the manager's transaction (plugins/base.DetailTableMixin).
"""

import functools

import sqlalchemy as sa

from blazar_ext.db import driver_read


class DetailTable:
    """The detail table ``model`` of a type, and its allocation table
    ``allocation`` whose ``resource_column`` names the resource held."""

    #: The detail columns stored from a request of the same keys (types
    #: storing a key otherwise override ``to_row`` and ``from_row``).
    columns: tuple = ()

    def __init__(self, model, allocation, resource_column: str,
                 columns: tuple | None = None):
        self.model = model
        self.allocation = allocation
        self.resource_column = resource_column
        if columns is not None:
            self.columns = columns

    # What a type says about its columns

    def to_row(self, spec: dict) -> dict:
        """The detail columns of a normalized request."""
        return {name: spec.get(name) for name in self.columns}

    def from_row(self, row: dict) -> dict:
        """The detail fields of a stored row (its ``columns``)."""
        return row

    def after_write(self, session, detail_id: str, spec: dict,
                    created: bool) -> None:
        """Rows of the type's own hanging off the detail row (none)."""

    def add_to_details(self, session, details: dict, ids: dict) -> None:
        """Complete ``details`` {reservation_id: fields} from rows of the
        type's own; ``ids``: {detail id: reservation_id}."""

    def before_delete(self, session, detail_ids) -> None:
        """Delete rows of the type's own (``detail_ids``: a subquery)."""

    # Detail rows

    @functools.cached_property
    def _insert(self) -> sa.Insert:
        # A row, not an ORM object (whose unit of work cost more than
        # the statement); the columns' defaults (id, created_at) apply.
        return sa.insert(self.model.__table__)

    def add(self, session, reservation_id: str, spec: dict) -> str:
        """Insert the detail row; its id (the reservation's resource_id)."""
        detail_id = session.connection().execute(self._insert, dict(
            self.to_row(spec), reservation_id=reservation_id)
        ).inserted_primary_key[0]
        self.after_write(session, detail_id, spec, created=True)
        return detail_id

    def update(self, session, reservation_id: str, spec: dict) -> None:
        model = self.model
        session.execute(sa.update(model).where(
            model.reservation_id == reservation_id).values(
                **self.to_row(spec)))
        detail_id = session.scalar(sa.select(model.id).where(
            model.reservation_id == reservation_id))
        self.after_write(session, detail_id, spec, created=False)

    @functools.cached_property
    def _detail_query(self) -> tuple:
        """(names, statement of many, statement of one) of details():
        built once per table. One reservation's (a lease show) by
        equality: an expanding parameter is rewritten into the SQL on
        each execution."""
        table = self.model.__table__
        names = [c.name for c in table.columns
                 if c.name not in ('id', 'reservation_id', 'created_at',
                                   'updated_at')]
        select = sa.select(table.c.id, table.c.reservation_id,
                           *[table.c[name] for name in names])
        return (names,
                select.where(table.c.reservation_id.in_(
                    sa.bindparam('ids', expanding=True))),
                select.where(table.c.reservation_id == sa.bindparam('id')))

    def details(self, session, reservation_ids: list) -> dict:
        """{reservation_id: detail fields}: one Core query (no ORM
        objects: a listing of a thousand leases reads them all), and the
        type's own rows."""
        names, many, one = self._detail_query
        reservation_ids = list(reservation_ids)
        if len(reservation_ids) == 1:
            query, params = one, {'id': reservation_ids[0]}
        else:
            query, params = many, {'ids': reservation_ids}
        out, ids = {}, {}
        for row in driver_read.rows(session.connection(), query, params)[1]:
            values = dict(zip(names, row[2:]))
            out[row[1]] = self.from_row(values)
            ids[row[0]] = row[1]
        if ids:
            self.add_to_details(session, out, ids)
        return out

    def delete(self, session, reservation_ids: list) -> None:
        """Delete the details, the type's own rows and the allocations of
        these reservations (the lease rows go after)."""
        model = self.model
        self.before_delete(session, sa.select(model.id).where(
            model.reservation_id.in_(reservation_ids)))
        for table in (model, self.allocation):
            session.execute(sa.delete(table).where(
                table.reservation_id.in_(reservation_ids)))

    # Allocations

    def held(self, session, reservation_ids: list) -> dict:
        """{reservation_id: [resource id, ...]} held, sorted; one query."""
        alloc = self.allocation
        resource = getattr(alloc, self.resource_column)
        out = {rid: [] for rid in reservation_ids}
        for rid, resource_id in session.execute(
                sa.select(alloc.reservation_id, resource)
                .where(alloc.reservation_id.in_(list(reservation_ids)))
                .order_by(resource)):
            out[rid].append(resource_id)
        return out

    def release(self, session, reservation_ids: list) -> None:
        """Drop every allocation of these reservations."""
        alloc = self.allocation
        session.execute(sa.delete(alloc).where(
            alloc.reservation_id.in_(list(reservation_ids))))
