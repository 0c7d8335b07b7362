"""Inserting many rows at once, as fast as the driver allows.

The ORM's bulk insert (``session.execute(insert(Model), rows)``) builds
and type-converts each row's parameters in Python, and computes every
Python-side default per row; at a million rows that is most of an import.
insert_rows() converts column by column and hands the driver ready
parameters, so SQLite and MySQL run one prepared (or multi-row) statement
per batch.
"""

import contextlib

import sqlalchemy as sa

# Rows per executemany: big enough that round trips do not count, small
# enough that one batch's parameters stay a few megabytes.
BATCH = 10000

# Drivers whose executemany is one prepared statement (sqlite3) or a
# multi-row INSERT (PyMySQL, mysqlclient). Elsewhere (psycopg2's
# executemany is a round trip per row) SQLAlchemy's own "insertmanyvalues"
# batching is faster.
_DRIVER_EXECUTEMANY = ('sqlite', 'mysql')

# SQLite's page cache while loading, in KiB (a cap: pages are taken as
# needed). The default 2 MiB makes a big transaction spill dirty pages to
# the database file long before its commit, paying the writes (and the
# journal's syncs) many times over.
SQLITE_LOADING_CACHE_KIB = 512 * 1024


@contextlib.contextmanager
def loading(conn):
    """``conn`` set up for loading many rows in its transaction, then as
    it was. Durability is untouched: only SQLite's cache grows."""
    if conn.dialect.name != 'sqlite':
        yield conn
        return
    before = conn.exec_driver_sql('PRAGMA cache_size').scalar()
    conn.exec_driver_sql('PRAGMA cache_size = %d'
                         % -SQLITE_LOADING_CACHE_KIB)
    try:
        yield conn
    finally:
        with contextlib.suppress(sa.exc.DBAPIError):
            conn.exec_driver_sql('PRAGMA cache_size = %d' % before)


def insert_rows(conn, table: sa.Table, rows: list,
                fill: dict | None = None) -> None:
    """INSERT ``rows`` (dicts with the same keys) into ``table``.

    Where a row gives None or does not name a column, ``fill`` gives its
    value or else, as the ORM does, the column's default: a constant as
    is, a callable called once per row.
    """
    if not rows:
        return
    fill = fill or {}
    columns = [c for c in table.columns
               if c.key in rows[0] or c.key in fill
               or _has_python_default(c)]
    keys = [c.key for c in columns]
    dialect = conn.dialect
    driver = dialect.name in _DRIVER_EXECUTEMANY
    if driver:
        compiled = table.insert().compile(dialect=dialect, column_keys=keys)
        if compiled.positional:
            keys = list(compiled.positiontup)
        processors = {
            c.key: c.type.dialect_impl(dialect).bind_processor(dialect)
            for c in columns}
    by_key = {c.key: c for c in columns}
    for start in range(0, len(rows), BATCH):
        batch = rows[start:start + BATCH]
        values = []
        for key in keys:
            column = by_key[key]
            if key in batch[0]:
                values_of = [row[key] for row in batch]
            else:
                values_of = [None] * len(batch)
            if key in fill:
                value = fill[key]
                values_of = [value if v is None else v for v in values_of]
            elif _has_python_default(column):
                values_of = [_default(column.default) if v is None else v
                             for v in values_of]
            if driver and processors[key] is not None:
                values_of = _processed(processors[key], values_of)
            values.append(values_of)
        params = list(zip(*values))
        if not (driver and compiled.positional):
            params = [dict(zip(keys, p)) for p in params]
        if driver:
            conn.exec_driver_sql(compiled.string, params)
        else:
            conn.execute(table.insert(), params)


def _processed(process, values: list) -> list:
    # Dates, flags and numbers recur (a lease's dates on each of its
    # events): each distinct value is converted once.
    try:
        distinct = set(values)
    except TypeError:  # unhashable (a JSON document)
        return [process(v) for v in values]
    if len(distinct) * 2 > len(values):
        return [process(v) for v in values]
    converted = {v: process(v) for v in distinct}
    return [converted[v] for v in values]


def _has_python_default(column: sa.Column) -> bool:
    default = column.default
    return default is not None and (default.is_scalar or default.is_callable)


def _default(default):
    if default.is_callable:
        return default.arg(None)
    return default.arg
