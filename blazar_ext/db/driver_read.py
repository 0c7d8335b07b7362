"""Prebuilt SELECTs run on the driver's cursor, past SQLAlchemy's
execution path.

A short read spends more in SQLAlchemy's execution (an execution
context, a result's metadata, a row object per row, event dispatch) than
in the database: 40 µs of a 60 µs ten-row SELECT on SQLite, and a lease
list or show runs four. For a statement built once at import, what that
path works out on every execution is the same each time, so it is worked
out once per statement and dialect, by SQLAlchemy's own compiler: the
SQL text, the order of its parameters and their bind processors, the
result columns' names and result processors (SQLite's datetime text
read back as a datetime, MySQL's 0/1 as a bool). Each execution then
binds, runs the cursor and applies the processors.

What SQLAlchemy's path does besides is kept where it matters:

* a statement runs on the connection's transaction, which the caller
  has begun (``session.connection()``), so it reads the same snapshot;
* a driver error goes through the connection's own error handling, so
  it comes out as SQLAlchemy's path raises it: oslo.db's exception
  (DBDeadlock, DBConnectionError, ...), the connection invalidated when
  it was lost;
* an engine that logs SQL or has cursor-execution listeners (SQL
  tracing, the benches' statement recorder) takes SQLAlchemy's path.
"""

import collections

import sqlalchemy as sa

from blazar_ext import identity_cache

# Plans of the statements read through here, per dialect.
_PLANS = identity_cache.IdentityCache(at_most=512)


class _Plan:
    """What executing ``statement`` on ``dialect`` works out each time."""

    def __init__(self, statement: sa.Select, dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.compiled = compiled
        self.expanding = bool(compiled.literal_execute_params
                              or compiled.post_compile_params)
        self.sql = compiled.string
        self.positiontup = compiled.positiontup if compiled.positional \
            else None
        self.bind_processors = dict(compiled._bind_processors)
        self.keys = [column[0] for column in compiled._result_columns]
        self._types = [column[3] for column in compiled._result_columns]
        self.dialect = dialect
        self.result_processors = None  # from the first cursor
        # Parameters rendered at execution (IN lists, literal values), by
        # compiled name: the driver gets their items, not them.
        self._listed = [compiled.bind_names[bind]
                        for bind in compiled.post_compile_params]
        self._late = frozenset(self._listed) | frozenset(
            compiled.bind_names[bind]
            for bind in compiled.literal_execute_params)
        # An IN list's expansion depends only on its length: kept per
        # length, unless a list holds rows (tuples) or values are written
        # into the SQL itself.
        self._expansions = {} if self.expanding and all(
            bind.expanding and not bind.type._is_tuple_type
            for bind in compiled.post_compile_params) and not \
            compiled.literal_execute_params else None
        # A statement that holds all its values (a filter's statement
        # built with them, kept): bound once, for executions that add none.
        self.fixed = None
        if all(not bind.required and bind.callable is None
               for bind in compiled.binds.values()):
            self.fixed = self._bind(None)

    def bind(self, params: dict | None):
        """(SQL, the driver's parameters) of one execution."""
        if not params and self.fixed is not None:
            return self.fixed
        return self._bind(params)

    def _bind(self, params: dict | None):
        compiled = self.compiled
        values = compiled.construct_params(params, escape_names=False)
        sql, order, processors = self.sql, self.positiontup, \
            self.bind_processors
        if self.expanding:
            sql, order, processors = self._expand(values)
        if order is not None:
            return sql, self.dialect.execute_sequence_format(
                [processors[key](values[key]) if key in processors
                 else values[key] for key in order])
        escaped = compiled.escaped_bind_names
        return sql, {escaped.get(key, key): (
            processors[key](value) if key in processors else value)
            for key, value in values.items() if key not in self._late}

    def _expand(self, values: dict) -> tuple:
        """(SQL, positional order, bind processors) with the IN lists of
        ``values`` expanded, their items added to ``values``."""
        kept = self._expansions
        if kept is None:
            state = self.compiled.construct_expanded_state(
                values, escape_names=False)
            values.update(state.parameters)
            return (state.statement, state.positiontup,
                    dict(self.bind_processors, **state.processors))
        lengths = tuple(len(values[name]) for name in self._listed)
        found = kept.get(lengths)
        if found is None:
            state = self.compiled.construct_expanded_state(
                values, escape_names=False)
            if len(kept) >= 64:
                kept.clear()
            found = kept[lengths] = (
                state.statement, state.positiontup,
                dict(self.bind_processors, **state.processors),
                state.parameter_expansion)
        for name, names in found[3].items():
            values.update(zip(names, values[name]))
        return found[:3]

    def processors(self, description) -> list:
        """(index, processor) of the columns that have one."""
        if self.result_processors is None:
            self.result_processors = [
                (index, processor) for index, processor in enumerate(
                    type_._cached_result_processor(self.dialect, column[1])
                    for type_, column in zip(self._types, description))
                if processor is not None]
        return self.result_processors


def _watched(connection: sa.engine.Connection) -> bool:
    """Whether SQL is logged or listened to (the engine's listeners
    include those of the Engine class, added before or after it)."""
    dispatch = connection.engine.dispatch
    return bool(connection._echo or connection._has_events
                or dispatch.before_cursor_execute
                or dispatch.after_cursor_execute
                or dispatch.before_execute or dispatch.after_execute)


def rows(connection: sa.engine.Connection, statement: sa.Select,
         params: dict | None = None) -> tuple:
    """(column names, a list of rows as tuples) of ``statement``, a
    SELECT built once, with ``params`` bound, on ``connection``'s
    transaction."""
    if _watched(connection):
        return _through_sqlalchemy(connection, statement, params)
    dialect = connection.dialect
    plan = _PLANS.get(statement, lambda: _Plan(statement, dialect), dialect)
    sql, parameters = plan.bind(params)
    cursor = connection.connection.dbapi_connection.cursor()
    try:
        cursor.execute(sql, parameters)
        fetched = cursor.fetchall()
        description = cursor.description
    except Exception as exc:
        # Wrapped and translated as SQLAlchemy's own execution does it
        # (oslo.db's exceptions; a lost connection invalidated).
        connection._handle_dbapi_exception(exc, sql, parameters, cursor,
                                           None)
    finally:
        cursor.close()
    processors = plan.processors(description)
    if processors and fetched:
        return plan.keys, [_processed(row, processors) for row in fetched]
    # A list, as from sqlite3 and psycopg2 (PyMySQL gives a tuple).
    return plan.keys, fetched if type(fetched) is list else list(fetched)


def dicts(connection: sa.engine.Connection, statement: sa.Select,
          params: dict | None = None) -> list:
    """The rows of ``statement`` (as rows()) as dicts by column name."""
    keys, fetched = rows(connection, statement, params)
    return [dict(zip(keys, row)) for row in fetched]


def records(connection: sa.engine.Connection, statement: sa.Select,
            params: dict | None = None) -> list:
    """The rows of ``statement`` (as rows()) as named tuples: read by
    column name (``row.id``) or position, as SQLAlchemy's rows are."""
    keys, fetched = rows(connection, statement, params)
    record = _RECORDS.get(statement, lambda: collections.namedtuple(
        'Record', keys, rename=True)._make)
    return [record(row) for row in fetched]


# A named tuple type per statement: made once, not per read.
_RECORDS = identity_cache.IdentityCache(at_most=512)


def _processed(row, processors: list) -> tuple:
    row = list(row)
    for index, processor in processors:
        row[index] = processor(row[index])
    return tuple(row)


def _through_sqlalchemy(connection, statement, params) -> tuple:
    result = connection.execute(statement, params)
    return list(result.keys()), [tuple(row) for row in result.all()]
