"""JSON texts built by the database, alike on SQLite, MySQL/MariaDB and
PostgreSQL.

A listing of thousands of rows is fastest when the database writes each
row's JSON and Python only joins the texts: these constructs compile to
each database's own JSON functions. Every one yields text (PostgreSQL's
json values are cast, or the driver would parse them).
"""

import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import expression

_MYSQL = ('mysql', 'mariadb')


def _for_mysql(construct):
    """Register the decorated compiler for both MySQL dialect names."""
    def register(function):
        for name in _MYSQL:
            compiler.compiles(construct, name)(function)
        return function
    return register


def _templated(construct, sqlite: str, postgresql: str,
               mysql: str | None = None):
    """Compile ``construct`` on each database to its template, '%s' there
    standing for the comma-separated arguments (MySQL's compiler may be
    registered apart)."""
    def compile_with(template):
        def compile_(element, sql_compiler, **kw):
            return template % sql_compiler.process(element.clauses, **kw)
        return compile_
    compiler.compiles(construct)(compile_with(sqlite))
    compiler.compiles(construct, 'postgresql')(compile_with(postgresql))
    if mysql is not None:
        _for_mysql(construct)(compile_with(mysql))
    return construct


class object_agg(expression.FunctionElement):
    """object_agg(key, value): the JSON object text {key: value, ...} of a
    group's rows; NULL or '{}' for no row, depending on the database."""

    type = sa.Text()
    name = 'object_agg'
    inherit_cache = True


_templated(object_agg, 'json_group_object(%s)',
           'CAST(json_object_agg(%s) AS TEXT)', 'JSON_OBJECTAGG(%s)')


class json_object(expression.FunctionElement):
    """json_object(key1, value1, key2, value2, ...): the object's text.
    SQL NULL is JSON null; wrap booleans in boolean() and datetimes in
    timestamp()."""

    type = sa.Text()
    name = 'json_object'
    inherit_cache = True


_templated(json_object, 'json_object(%s)',
           'CAST(json_build_object(%s) AS TEXT)', 'JSON_OBJECT(%s)')


class boolean(expression.FunctionElement):
    """A boolean column as JSON true/false inside json_object() (SQLite
    and MySQL keep booleans as integers, which would show as 1 and 0)."""

    type = sa.Boolean()
    name = 'json_boolean'
    inherit_cache = True


# On MySQL a JSON function's result, which JSON_OBJECT embeds as JSON.
_templated(boolean, "json(CASE WHEN %s THEN 'true' ELSE 'false' END)",
           '%s', "JSON_EXTRACT(IF(%s, 'true', 'false'), '$')")


class timestamp(expression.FunctionElement):
    """A naive datetime as 'YYYY-MM-DD HH:MM:SS.ffffff' (how Blazar shows
    a row's created_at and updated_at), NULL as NULL."""

    type = sa.Text()
    name = 'json_timestamp'
    inherit_cache = True


# SQLAlchemy stores 'YYYY-MM-DD HH:MM:SS.ffffff' in SQLite.
_templated(timestamp, "%s", "to_char(%s, 'YYYY-MM-DD HH24:MI:SS.US')")


@_for_mysql(timestamp)
def _timestamp_mysql(element, sql_compiler, **kw):
    # The format bound, as its '%' would otherwise need the driver's
    # escaping.
    return 'DATE_FORMAT(%s, %s)' % (
        sql_compiler.process(element.clauses, **kw),
        sql_compiler.process(sa.literal('%Y-%m-%d %H:%i:%s.%f'), **kw))


class merge(expression.FunctionElement):
    """merge(base, extra): the object text ``base`` with the members of
    ``extra`` (an object text, or NULL for none) added.

    ``base`` must have at least one member and only scalar values (so its
    text ends in a single '}'), and no key of ``extra``. Spliced as text,
    ``extra`` read once: parsing both objects (json_patch,
    JSON_MERGE_PATCH, jsonb) cost more than building them on MariaDB.
    """

    type = sa.Text()
    name = 'json_merge'
    inherit_cache = True


@compiler.compiles(merge)
def _merge_default(element, sql_compiler, **kw):
    base, extra = (sql_compiler.process(c, **kw) for c in element.clauses)
    # SQLite's json_group_object() of no row is '{}', not NULL.
    return ("rtrim(%s, '}') || coalesce(', ' || substr(nullif(%s, '{}'), "
            "2), '}')" % (base, extra))


@_for_mysql(merge)
def _merge_mysql(element, sql_compiler, **kw):
    base, extra = (sql_compiler.process(c, **kw) for c in element.clauses)
    return ("CONCAT(TRIM(TRAILING '}' FROM %s), "
            "COALESCE(CONCAT(', ', SUBSTRING(%s, 2)), '}'))" % (base, extra))


class joined(expression.FunctionElement):
    """joined(value): the comma-separated text of a group's values, in no
    set order; NULL for no row. (MySQL cuts it at group_concat_max_len,
    which db/session.py raises for every connection.)"""

    type = sa.Text()
    name = 'joined'
    inherit_cache = True


_templated(joined, 'group_concat(%s)', "string_agg(CAST(%s AS TEXT), ',')",
           'GROUP_CONCAT(%s)')


class array_agg(expression.FunctionElement):
    """array_agg(value): the JSON array text of a group's values, in no
    set order (a listing of a thousand values reads one row per group
    instead of one per value)."""

    type = sa.Text()
    name = 'json_array_agg'
    inherit_cache = True


_templated(array_agg, 'json_group_array(%s)',
           'CAST(json_agg(%s) AS TEXT)', 'JSON_ARRAYAGG(%s)')


class truncated(expression.FunctionElement):
    """truncated(number): toward zero, as an integer, as Python's int()
    does (PostgreSQL's and MySQL's casts round instead)."""

    type = sa.BigInteger()
    name = 'truncated'
    inherit_cache = True


_templated(truncated, 'CAST(%s AS INTEGER)', 'CAST(trunc(%s) AS BIGINT)',
           'CAST(TRUNCATE(%s, 0) AS SIGNED)')
