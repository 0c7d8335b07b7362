"""Recurrence rules of lease series: an RFC 5545 RRULE subset (pure code).

A rule is read by python-dateutil's rrule in the series' time zone, with
the first occurrence's local wall-clock start as DTSTART, so every
occurrence starts and ends at the same wall-clock time whatever the
daylight-saving offset of its day. Occurrences are answered in naive UTC,
as leases store their dates.
"""

import dataclasses
import datetime
import zoneinfo

from dateutil import rrule

from blazar_ext import exceptions

FREQUENCIES = ('DAILY', 'WEEKLY', 'MONTHLY')
PARTS = ('FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'COUNT', 'UNTIL')
MAX_LENGTH = 255
UTC = datetime.timezone.utc


def _invalid(field: str, reason: str) -> exceptions.Invalid:
    return exceptions.Invalid(reason='%s: %s' % (field, reason))


def zone(name: str | None) -> zoneinfo.ZoneInfo:
    """The IANA time zone ``name`` (UTC when absent); Invalid naming
    ``timezone`` otherwise."""
    if name is None:
        return zoneinfo.ZoneInfo('UTC')
    try:
        if not isinstance(name, str) or not name or '..' in name:
            raise ValueError(name)
        return zoneinfo.ZoneInfo(name)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        raise _invalid('timezone', '%r is not an IANA time zone name (such '
                       'as Europe/Paris or UTC)' % exceptions.cut(name, 80))


def _check_subset(text) -> dict:
    """{PART: value} of ``text`` if it keeps to the subset."""
    if not isinstance(text, str) or not text or len(text) > MAX_LENGTH:
        raise _invalid('recurrence', 'a rule such as '
                       '"FREQ=WEEKLY;BYDAY=TU;COUNT=10" is required')
    parts = {}
    for item in text.upper().removeprefix('RRULE:').split(';'):
        name, sep, value = item.partition('=')
        if not sep or name not in PARTS or name in parts:
            raise _invalid('recurrence', '%r is not supported: use FREQ, '
                           'INTERVAL, BYDAY, BYMONTHDAY, COUNT or UNTIL, '
                           'each once' % exceptions.cut(item, 80))
        parts[name] = value
    if parts.get('FREQ') not in FREQUENCIES:
        raise _invalid('recurrence', 'FREQ must be one of %s'
                       % ', '.join(FREQUENCIES))
    if ('COUNT' in parts) == ('UNTIL' in parts):
        raise _invalid('recurrence', 'give COUNT or UNTIL (one of them): a '
                       'series must end')
    for name in ('COUNT', 'INTERVAL'):
        if name in parts and not (parts[name].isdigit()
                                  and int(parts[name]) >= 1):
            raise _invalid('recurrence', '%s must be a positive integer'
                           % name)
    return parts


@dataclasses.dataclass(frozen=True)
class Rule:
    """A parsed rule: ``local`` is the list of local wall-clock starts."""

    text: str
    timezone: str
    local: tuple
    duration: datetime.timedelta

    def occurrences(self) -> list:
        """[(start, end)] in naive UTC, for every occurrence."""
        tz = zoneinfo.ZoneInfo(self.timezone)
        return [(to_utc(start, tz), to_utc(start + self.duration, tz))
                for start in self.local]


def to_utc(local: datetime.datetime, tz) -> datetime.datetime:
    """A local wall-clock time of ``tz`` in naive UTC."""
    return local.replace(tzinfo=tz).astimezone(UTC).replace(tzinfo=None)


def parse(text, timezone: str | None, start: datetime.datetime,
          end: datetime.datetime, max_count: int = 1000) -> Rule:
    """The rule ``text`` from the local wall-clock ``start`` (its first
    occurrence's window is [start, end]); Invalid naming the field."""
    tz = zone(timezone)
    _check_subset(text)
    if end <= start:
        raise _invalid('end_date', 'must be later than start_date')
    body = text.removeprefix('RRULE:').removeprefix('rrule:')
    try:
        # UNTIL in UTC ("...Z") needs an aware DTSTART; a local UNTIL a
        # naive one.
        try:
            rule = rrule.rrulestr(body, dtstart=start.replace(tzinfo=tz))
            starts = [s.replace(tzinfo=None)
                      for s in _bounded(rule, max_count)]
        except ValueError as exc:
            if 'UNTIL' not in str(exc):
                raise
            rule = rrule.rrulestr(body, dtstart=start)
            starts = list(_bounded(rule, max_count))
    except (ValueError, TypeError, OverflowError) as exc:
        raise _invalid('recurrence', str(exc))
    if not starts:
        raise _invalid('recurrence', 'the rule gives no occurrence from '
                       'start_date')
    duration = end - start
    for first, second in zip(starts, starts[1:]):
        if first + duration > second:
            raise _invalid('end_date', 'each occurrence must end before the '
                           'next starts (%s)' % second.isoformat(' '))
    return Rule(text=text, timezone=tz.key, local=tuple(starts),
                duration=duration)


def _bounded(rule, max_count: int):
    for n, start in enumerate(rule):
        if n >= max_count:
            raise _invalid('recurrence', 'a series has at most %d '
                           'occurrences' % max_count)
        yield start
