"""SQL building blocks that behave the same on SQLite, MySQL/MariaDB and
PostgreSQL.

Three portability traps are handled here:

- String comparison must be exact and ordered by code point everywhere.
  MySQL's default collations ignore case (and trailing spaces) and
  PostgreSQL's follow the locale, so values are compared as binary strings
  on MySQL and with the "C" collation on PostgreSQL.
- A failed CAST is an error on PostgreSQL (MySQL and SQLite quietly yield 0),
  so a text value is cast to a number only under a CASE whose guard proved it
  numeric. The guard uses REPLACE, LENGTH and LIKE only, which all three
  have; no REGEXP, whose spelling differs and which SQLite lacks.
- Substring search: LIKE ignores ASCII case on SQLite, so ``instr`` /
  ``strpos`` are used instead.
"""

import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import expression

from blazar_ext.query import language

# Wide enough for every number language.is_number accepts; MySQL's CAST to a
# bare DECIMAL would mean DECIMAL(10, 0) and drop the decimals.
NUMBER = sa.Numeric(65, 30)

_MYSQL = ('mysql', 'mariadb')


class exact(expression.FunctionElement):
    """A string expression compared byte for byte (code point order)."""

    type = sa.String()
    name = 'exact'
    inherit_cache = True


@compiler.compiles(exact)
def _exact_default(element, sql_compiler, **kw):
    # SQLite's default BINARY collation is already exact.
    return sql_compiler.process(element.clauses, **kw)


@compiler.compiles(exact, 'postgresql')
def _exact_postgresql(element, sql_compiler, **kw):
    return '(%s COLLATE "C")' % sql_compiler.process(element.clauses, **kw)


def _exact_mysql(element, sql_compiler, **kw):
    text = sql_compiler.process(element.clauses, **kw)
    return 'CAST(%s AS BINARY)' % text


for _name in _MYSQL:
    compiler.compiles(exact, _name)(_exact_mysql)


class equal(expression.FunctionElement):
    """Exact string equality that can still use an index on the left side.

    PostgreSQL's and SQLite's ``=`` is already exact (deterministic
    collations compare bytes); MySQL's ignores case and trailing spaces, so
    there the index-friendly ``=`` narrows and a binary ``=`` decides.
    """

    type = sa.Boolean()
    name = 'equal'
    inherit_cache = True
    # Already a condition: no '= 1' appended where booleans are ints,
    # which would hide the comparison from the index.
    _is_implicitly_boolean = True


@compiler.compiles(equal)
def _equal_default(element, sql_compiler, **kw):
    return '(%s = %s)' % tuple(_args(element, sql_compiler, **kw))


def _equal_mysql(element, sql_compiler, **kw):
    left, right = _args(element, sql_compiler, **kw)
    return '(%s = %s AND CAST(%s AS BINARY) = %s)' % (left, right, left,
                                                      right)


for _name in _MYSQL:
    compiler.compiles(equal, _name)(_equal_mysql)


class contains(expression.FunctionElement):
    """True where the first string contains the second, case-sensitively."""

    type = sa.Boolean()
    name = 'contains'
    inherit_cache = True
    # Already a condition: no '= 1' appended where booleans are ints,
    # which would hide the comparison from the index.
    _is_implicitly_boolean = True


def _args(element, sql_compiler, **kw):
    return [sql_compiler.process(arg, **kw)
            for arg in element.clauses.clauses]


@compiler.compiles(contains)
def _contains_default(element, sql_compiler, **kw):
    return '(instr(%s, %s) > 0)' % tuple(_args(element, sql_compiler, **kw))


@compiler.compiles(contains, 'postgresql')
def _contains_postgresql(element, sql_compiler, **kw):
    return '(strpos(%s, %s) > 0)' % tuple(_args(element, sql_compiler, **kw))


def _contains_mysql(element, sql_compiler, **kw):
    return ('(INSTR(CAST(%s AS BINARY), CAST(%s AS BINARY)) > 0)'
            % tuple(_args(element, sql_compiler, **kw)))


for _name in _MYSQL:
    compiler.compiles(contains, _name)(_contains_mysql)


def _strip(value, characters) -> sa.ColumnElement:
    for character in characters:
        value = sa.func.replace(value, character, '')
    return value


def is_number(value) -> sa.ColumnElement:
    """True exactly where language.is_number would be: -?digits(.digits)?

    ``value`` must not be NULL. Every function here is safe on any text, so
    the result may guard a CAST inside a CASE.
    """
    length = sa.func.length(value)
    # Only digits, '.' and '-'; then the shape, with LIKE (not '=', which
    # ignores trailing spaces on MySQL): '-' only first, at most one '.',
    # with a digit on each side of it. A digit is then always present.
    return sa.and_(
        length >= 1,
        length <= language.MAX_NUMBER_LENGTH,
        sa.func.length(_strip(value, '0123456789.-')) == 0,
        value.not_like('_%-%'),
        value.not_like('%-'),
        value.not_like('%.%.%'),
        value.not_like('.%'),
        value.not_like('-.%'),
        value.not_like('%.'))


def to_number(value) -> sa.ColumnElement:
    """CAST to a decimal; only under a guard from is_number for text."""
    return sa.cast(value, NUMBER)


def number_literal(text: str) -> sa.ColumnElement:
    """A numeric literal, cast in SQL so every driver binds it as text."""
    return sa.cast(sa.literal(text, sa.String()), NUMBER)


def as_list(value) -> sa.ColumnElement:
    """',a,b,' from '["a", "b"]', 'a,b', 'a b': elements between commas."""
    for character in language.LIST_DELIMITERS:
        if character != ',':
            value = sa.func.replace(value, character, ',')
    return sa.literal(',').concat(value).concat(',')
