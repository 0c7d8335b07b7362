"""Free time of a pool of interchangeable resources, for the slot search:
pure interval arithmetic over the busy intervals one query read
(blazar_ext.db.api.slot_search), no I/O.

- ``start_ranges``: the closed ranges of start times at which ``count``
  resources are free for ``duration``;
- ``intersect``: the starts every reservation of a request shares;
- ``latest_end``: from a start, how long ``count`` resources stay free.

Busy intervals are half-open, as the allocator sees them.
"""

import bisect
import datetime
from typing import Mapping

from blazar_ext.query import availability

Range = tuple  # (first start, last start), both included


def start_ranges(busy_by_resource: Mapping, start: datetime.datetime,
                 end: datetime.datetime, count: int,
                 duration: datetime.timedelta) -> list:
    """Ranges of starts in [start, end - duration] where ``count`` of the
    resources are free for the whole ``duration``, ascending."""
    found = availability.compute(busy_by_resource, start, end, count,
                                 duration)
    return [(a, b - duration) for a, b in found.slots]


def intersect(range_lists: list) -> list:
    """The starts in every list of ranges (a list of None is no
    constraint); ascending, disjoint."""
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


def latest_end(busy_by_resource: Mapping, start: datetime.datetime,
               end: datetime.datetime, count: int,
               at: datetime.datetime) -> datetime.datetime | None:
    """The latest end (up to ``end``) of a window from ``at`` over which
    ``count`` resources stay free; None when fewer are free at ``at``."""
    ends = []
    for busy in busy_by_resource.values():
        for a, b in availability.free_gaps(busy, start, end):
            if a <= at < b:
                ends.append(b)
                break
    if len(ends) < count:
        return None
    return sorted(ends, reverse=True)[count - 1]


def stretches(busy_by_resource: Mapping, start: datetime.datetime,
              end: datetime.datetime, count: int, times: list) -> list:
    """``latest_end`` at each of ``times`` (ascending), in one sweep over
    the free gaps: [latest end or None, ...]."""
    gaps = sorted(gap for busy in busy_by_resource.values()
                  for gap in availability.free_gaps(busy, start, end))
    active, out, i = [], [], 0
    for at in times:
        while i < len(gaps) and gaps[i][0] <= at:
            bisect.insort(active, gaps[i][1])
            i += 1
        del active[:bisect.bisect_right(active, at)]
        out.append(active[-count] if len(active) >= count else None)
    return out


def gap_starts(busy_by_resource: Mapping, start: datetime.datetime,
               end: datetime.datetime) -> set:
    """Where some resource becomes free within [start, end)."""
    return {a for busy in busy_by_resource.values()
            for a, _b in availability.free_gaps(busy, start, end)}
