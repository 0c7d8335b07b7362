"""A built-once statement's rows read on the DBAPI cursor.

``conn.execute(statement, params).all()`` runs SQLAlchemy's execution
path on every call: the compiled cache's key lookup, the parameters
named and processed, the execution context, its events, a result and
its metadata, a Row per row. For a small read built once (a module
constant or a cached statement) that is more Python than the database
takes to run it: for the three statements of a page of allocation
candidates, about 300 function calls a request. all_rows() compiles the
statement once per dialect and hands its SQL text and parameters to the
transaction's DBAPI connection, in the same transaction (oslo.db's
BEGIN has been sent by then: enginefacade begins its transactions
explicitly).
"""

import sqlalchemy as sa

from blazar_ext import identity_cache

# _compile() of each statement, per dialect.
_COMPILED = identity_cache.IdentityCache(512)


def _dialect_key(dialect) -> tuple:
    # What the compiled text depends on: the backend, its driver's
    # parameter style, MariaDB or MySQL, the server version.
    return (dialect.name, dialect.driver, dialect.paramstyle,
            getattr(dialect, 'is_mariadb', False),
            dialect.server_version_info)


def _compile(statement, dialect) -> tuple:
    """(compiled, result processors or None, (text, parameters) when
    the statement alone fixes them, else None)."""
    compiled = statement.compile(dialect=dialect)
    processors = [column.type.dialect_impl(dialect).result_processor(
        dialect, None) for column in statement.selected_columns]
    fixed = None
    if not (compiled.post_compile_params or compiled.literal_execute_params
            or any(bind.callable is not None
                   for bind in compiled.binds.values())):
        # Every value is the statement's own (a cached statement's
        # amounts, limit, names): the same on every execution.
        fixed = _driver_parameters(compiled,
                                   compiled.construct_expanded_state())
    return compiled, (processors if any(processors) else None), fixed


def _driver_parameters(compiled, state) -> tuple:
    """(SQL text, parameters) for the DBAPI cursor from an expanded
    state, its bind processors applied."""
    values = state.parameters
    for name, process in state.processors.items():
        if name in values:
            values[name] = process(values[name])
    if compiled.positional:
        values = tuple(values[name] for name in state.positiontup)
    return state.statement, values


# _recipe() per statement, dialect and shape of parameters.
_RECIPES = identity_cache.IdentityCache(512)


def _shape(params: dict) -> tuple:
    return tuple(sorted(
        (name, len(value) if isinstance(value, (list, tuple)) else None)
        for name, value in params.items()))


def _recipe(compiled, params: dict) -> tuple | None:
    """(SQL text, where each driver parameter comes from) for parameters
    of the shape of ``params`` (the same names, lists of the same
    lengths): ('value', name), ('item', name, index) or ('constant',
    value). Found once by expanding the statement with a marker object
    in place of each given value; None where a value would be converted
    (bind processors) or the parameters are named (PostgreSQL's style).
    """
    if not compiled.positional or any(
            bind.callable is not None for bind in compiled.binds.values()):
        return None
    markers = {}
    probe = {}
    for name, value in params.items():
        if isinstance(value, (list, tuple)):
            probe[name] = []
            for index in range(len(value)):
                marker = object()
                markers[id(marker)] = ('item', name, index)
                probe[name].append(marker)
        else:
            marker = object()
            markers[id(marker)] = ('value', name)
            probe[name] = marker
    state = compiled.construct_expanded_state(probe)
    if state.processors:
        return None
    sources = []
    for name in state.positiontup:
        value = state.parameters[name]
        sources.append(markers.get(id(value), ('constant', value)))
    return state.statement, tuple(sources)


def _with_params(statement, compiled, dialect, params) -> tuple:
    """(SQL text, driver parameters) of ``statement`` with ``params``."""
    recipe = None
    if params:
        recipe = _RECIPES.get(statement, lambda: _recipe(compiled, params),
                              *_dialect_key(dialect), _shape(params))
    if recipe is None:
        return _driver_parameters(compiled,
                                  compiled.construct_expanded_state(params))
    text, sources = recipe
    values = []
    for source in sources:
        kind = source[0]
        if kind == 'item':
            values.append(params[source[1]][source[2]])
        elif kind == 'value':
            values.append(params[source[1]])
        else:
            values.append(source[1])
    return text, tuple(values)


def all_rows(conn: sa.engine.Connection, statement: sa.Select,
             params: dict | None = None) -> list:
    """The rows of ``statement`` (built once: kept by identity) with
    ``params``, as tuples, as ``conn.execute(statement, params).all()``
    gives them, the values converted as SQLAlchemy converts them.

    A DBAPI error is raised again through SQLAlchemy (the statement run
    once more by ``conn.execute``), so that oslo.db sees it as from any
    other statement: wrapped, a lost connection invalidated. On
    PostgreSQL, where the first failure would abort the transaction,
    SQLAlchemy runs the statement.
    """
    dialect = conn.dialect
    if dialect.name == 'postgresql':
        # A failed statement aborts a PostgreSQL transaction: run again
        # to be raised through SQLAlchemy, the error would be that one.
        return conn.execute(statement, params).all()
    compiled, processors, fixed = _COMPILED.get(
        statement, lambda: _compile(statement, dialect),
        *_dialect_key(dialect))
    if params is None and fixed is not None:
        text, values = fixed
    else:
        text, values = _with_params(statement, compiled, dialect, params)
    try:
        rows = _fetch(conn, text, values)
    except dialect.loaded_dbapi.Error:
        return conn.execute(statement, params).all()
    if processors is not None:
        rows = [tuple(value if process is None else process(value)
                      for process, value in zip(processors, row))
                for row in rows]
    return rows


def _fetch(conn, text: str, values) -> list:
    """The rows of SQL ``text`` with ``values``, on the DBAPI connection
    of ``conn``'s transaction (no SQLAlchemy event sees it)."""
    cursor = conn.connection.dbapi_connection.cursor()
    try:
        cursor.execute(text, values)
        return list(cursor.fetchall())  # PyMySQL's is a tuple
    finally:
        cursor.close()
