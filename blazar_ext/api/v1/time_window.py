"""The ``start`` and ``end`` query parameters of the read-only routes that
look at a window of time (availability, calendar)."""

import datetime

from oslo_utils import timeutils

from blazar_ext import exceptions

DATE_FORMATS = ('%Y-%m-%d %H:%M', '%Y-%m-%d %H:%M:%S')
# Longer windows are not a calendar question; the cap bounds the answer.
MAX_WINDOW = datetime.timedelta(days=732)


def parse_date(value: str, field: str) -> datetime.datetime:
    """'YYYY-MM-DD HH:MM[:SS]' (UTC), or 'now' for ``start``."""
    if field == 'start' and value == 'now':
        # Dates are given to the minute, as lease dates are.
        return timeutils.utcnow().replace(second=0, microsecond=0)
    for fmt in DATE_FORMATS:
        try:
            return datetime.datetime.strptime(value, fmt)
        except ValueError:
            continue
    raise exceptions.Invalid(
        reason="%s %r is not a date in the format YYYY-MM-DD HH:MM%s"
               % (field, value, " or 'now'" if field == 'start' else ''))


def window(params) -> tuple:
    """(start, end) from the query; Invalid names what is wrong."""
    for field in ('start', 'end'):
        if not params.get(field):
            raise exceptions.Invalid(
                reason='query parameter %s is required (YYYY-MM-DD HH:MM)'
                       % field)
    start = parse_date(params['start'], 'start')
    end = parse_date(params['end'], 'end')
    if end - start < datetime.timedelta(minutes=1):
        raise exceptions.Invalid(
            reason='end must be at least a minute after start')
    if end - start > MAX_WINDOW:
        raise exceptions.Invalid(
            reason='the window may be at most %d days long'
                   % MAX_WINDOW.days)
    return start, end


def check_names(params, allowed: frozenset, repeatable=frozenset()) -> None:
    """Refuse unknown query parameters and repeats of single ones."""
    unknown = sorted(set(params.keys()) - allowed)
    if unknown:
        raise exceptions.Invalid(
            reason='unknown query parameter(s): %s; expected %s'
                   % (', '.join(unknown), ', '.join(sorted(allowed))))
    for name in sorted(allowed - repeatable):
        if len(params.getall(name)) > 1:
            raise exceptions.Invalid(
                reason='query parameter %s may be given once' % name)


def stamp(value: datetime.datetime) -> str:
    """A date as the window parameters and lease dates take it."""
    return value.strftime(DATE_FORMATS[0])
