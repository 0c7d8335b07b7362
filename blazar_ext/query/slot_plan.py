"""Free time of a pool of interchangeable resources, for the slot search:
pure interval arithmetic over the busy intervals one query read
(blazar_ext.db.api.slot_search), no I/O.

A pool is its free gaps, one list per resource:

- ``gaps_from_rows`` / ``gaps_from_busy``: the gaps within a window;
- ``start_ranges``: the closed ranges of start times at which ``count``
  resources are free for ``duration``;
- ``intersect``: the starts every reservation of a request shares;
- ``latest_end`` / ``stretches``: from a start, how long ``count``
  resources stay free.

Busy intervals are half-open, as the allocator sees them.
"""

import bisect
import datetime
from typing import Iterable, Mapping

from blazar_ext.query import availability

Range = tuple  # (first start, last start), both included


EPOCH = datetime.datetime(1970, 1, 1)
MICROSECOND = datetime.timedelta(microseconds=1)


def microseconds(value: datetime.datetime) -> int:
    """``value`` as whole microseconds since 1970-01-01 (naive UTC)."""
    return (value - EPOCH) // MICROSECOND


def from_microseconds(value: int) -> datetime.datetime:
    return EPOCH + datetime.timedelta(microseconds=value)


def gaps_from_rows(rows: Iterable, start: datetime.datetime,
                   end: datetime.datetime, cleaning: datetime.timedelta,
                   min_length: datetime.timedelta = MICROSECOND) -> list:
    """Gaps per resource (``keyed_gaps_from_rows`` without the ids)."""
    return keyed_gaps_from_rows(rows, start, end, cleaning, min_length)[1]


def keyed_gaps_from_rows(rows: Iterable, start: datetime.datetime,
                         end: datetime.datetime,
                         cleaning: datetime.timedelta,
                         min_length: datetime.timedelta = MICROSECOND
                         ) -> tuple:
    """(resource ids, gaps per resource) at least ``min_length`` long,
    from (resource,
    busy start, busy end) rows in microseconds since the epoch, ordered
    by resource then start (None, None: never busy), each busy interval
    widened by ``cleaning``: one pass in integers.

    Shorter gaps are left out: no start range, stretch or longest option
    of at least ``min_length`` depends on them (a window of that length
    lies in gaps of that length), and most gaps of a busy pool are short.
    """
    low, high = microseconds(start), microseconds(end)
    clean = cleaning // MICROSECOND
    least = max(min_length // MICROSECOND, 1)
    ids, pools, current, gaps, cursor = [], [], object(), None, low
    for resource, b_start, b_end in rows:
        if resource != current:
            if gaps is not None:
                if high - cursor >= least:
                    gaps.append((cursor, high))
                pools.append(gaps)
            current, gaps, cursor = resource, [], low
            ids.append(resource)
        if b_start is None:
            continue
        b_start -= clean
        if b_start - cursor >= least:
            gap_end = b_start if b_start < high else high
            if gap_end - cursor >= least:
                gaps.append((cursor, gap_end))
        b_end += clean
        if b_end > cursor:
            cursor = b_end
    if gaps is not None:
        if high - cursor >= least:
            gaps.append((cursor, high))
        pools.append(gaps)
    # Each distinct time turned into a date once: gaps share many (every
    # gap open at the window's end ends at ``end``).
    dates = {at: from_microseconds(at)
             for at in {at for g in pools for gap in g for at in gap}}
    return ids, [[(dates[a], dates[b]) for a, b in g] for g in pools]


def free_throughout(ids: list, gaps: list) -> list:
    """[(gap start, gap end, resource id)] of every gap, for
    ``free_over``."""
    return [(a, b, resource) for resource, own in zip(ids, gaps)
            for a, b in own]


def free_over(flat: list, start: datetime.datetime,
              end: datetime.datetime) -> list:
    """The ids of the resources free over all of [start, end], from
    ``free_throughout``: those with one gap around it."""
    return [resource for a, b, resource in flat if a <= start and end <= b]


def gaps_from_busy(busy_by_resource: Mapping, start: datetime.datetime,
                   end: datetime.datetime) -> list:
    """Gaps per resource from {resource: [(busy start, busy end)]}."""
    return [availability.free_gaps(busy, start, end)
            for busy in busy_by_resource.values()]


def start_ranges(gaps: list, count: int,
                 duration: datetime.timedelta) -> list:
    """Ranges of starts where ``count`` resources are free for the whole
    ``duration``, ascending."""
    return [(a, b - duration)
            for a, b in availability._slots(gaps, count, duration)]


def intersect(range_lists: list) -> list | None:
    """The starts in every list of ranges (a None in the list is no
    constraint; None when all are); ascending, disjoint."""
    lists = [r for r in range_lists if r is not None]
    if not lists:
        return None
    result = lists[0]
    for other in lists[1:]:
        merged, i, j = [], 0, 0
        while i < len(result) and j < len(other):
            low = max(result[i][0], other[j][0])
            high = min(result[i][1], other[j][1])
            if low <= high:
                merged.append((low, high))
            if result[i][1] < other[j][1]:
                i += 1
            else:
                j += 1
        result = merged
    return result


def latest_end(gaps: list, count: int,
               at: datetime.datetime) -> datetime.datetime | None:
    """The latest end of a window from ``at`` over which ``count``
    resources stay free; None when fewer are free at ``at``."""
    return stretches(gaps, count, [at])[0]


def stretches(gaps: list, count: int, times: list) -> list:
    """``latest_end`` at each of ``times`` (ascending), in one sweep over
    the gaps: [latest end or None, ...]."""
    ordered = sorted(gap for resource in gaps for gap in resource)
    active, out, i = [], [], 0
    for at in times:
        while i < len(ordered) and ordered[i][0] <= at:
            bisect.insort(active, ordered[i][1])
            i += 1
        del active[:bisect.bisect_right(active, at)]
        out.append(active[-count] if len(active) >= count else None)
    return out


def gap_starts(gaps: list) -> set:
    """Where some resource becomes free."""
    return {a for resource in gaps for a, _b in resource}
