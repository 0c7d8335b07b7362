"""A date as whole microseconds since 1970-01-01, computed by the
database: the slot search reads allocation dates this way (SQLite keeps
dates as text, and Python parses text several times slower than it reads
an integer), and computehost_allocations stores it (revision 0030)."""

import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import functions as sql_functions


class EpochMicroseconds(sql_functions.FunctionElement):
    """A date column as whole microseconds since 1970-01-01, exactly."""

    type = sa.BigInteger()
    name = 'epoch_microseconds'
    inherit_cache = True


@compiler.compiles(EpochMicroseconds)
def _epoch_sqlite(element, sql_compiler, **kw):
    # SQLAlchemy stores 'YYYY-MM-DD HH:MM:SS.ffffff': the seconds of the
    # first 19 characters (julianday rounds a fraction, so none is given
    # it), plus the six digits after the point. julianday of whole
    # seconds is exact to far below a second, so rounding its distance
    # from the epoch gives the seconds exactly; it is about a third
    # cheaper than strftime('%s'), which formats a string to be parsed.
    # Deterministic, so a generated column may use it.
    column = sql_compiler.process(element.clauses, **kw)
    return ("(CAST(round((julianday(substr(%s, 1, 19)) - 2440587.5)"
            " * 86400.0) AS INTEGER) * 1000000"
            " + CAST(substr(%s, 21, 6) AS INTEGER))" % (column, column))


@compiler.compiles(EpochMicroseconds, 'postgresql')
def _epoch_postgresql(element, sql_compiler, **kw):
    # A timestamp without time zone: its nominal seconds, no zone applied.
    return ('CAST(EXTRACT(EPOCH FROM %s) * 1000000 AS BIGINT)'
            % sql_compiler.process(element.clauses, **kw))


def _epoch_mysql(element, sql_compiler, **kw):
    # TIMESTAMPDIFF, unlike UNIX_TIMESTAMP, ignores the session's zone.
    return ("TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', %s)"
            % sql_compiler.process(element.clauses, **kw))


# A mariadb:// URL names its dialect 'mariadb', which a compiler for
# 'mysql' alone does not reach.
for _name in ('mysql', 'mariadb'):
    compiler.compiles(EpochMicroseconds, _name)(_epoch_mysql)


def stored(column: sa.Column) -> sa.Column:
    """A BIGINT column the database keeps equal to ``column`` in epoch
    microseconds, under every write (a stored generated column)."""
    return sa.Column(sa.BigInteger,
                     sa.Computed(EpochMicroseconds(column), persisted=True))
