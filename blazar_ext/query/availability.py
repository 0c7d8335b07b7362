"""When are N matching hosts free? Pure interval arithmetic, no I/O.

The database layer reads, in one query, every matching host with the
allocations that overlap the window (blazar_ext.db.api.availability);
this module turns those busy intervals into answers:

- ``free_hosts``: how many matching hosts are free at each moment of the
  window, as a step function of consecutive segments;
- ``slots``: the intervals within which every ``duration``-long window
  has ``count`` hosts free for its whole length (the same hosts
  throughout, as a lease needs them), earliest first.

Intervals are half-open as the allocator sees them: a busy [s, e) and a
lease [e, ...) do not overlap.
"""

import dataclasses
import datetime
from typing import Iterable, Mapping, Sequence

Interval = tuple  # (datetime.datetime, datetime.datetime)


@dataclasses.dataclass(frozen=True)
class Availability:
    """The answer for one window, count and duration."""

    matching_hosts: int
    free_hosts: list  # [(start, end, number of free hosts)]
    slots: list  # [(start, end)], each at least ``duration`` long

    @property
    def earliest(self) -> Interval | None:
        """The first interval a lease of the duration fits, or None."""
        return self.slots[0] if self.slots else None


def free_gaps(busy: Iterable[Interval], start: datetime.datetime,
              end: datetime.datetime) -> list:
    """The parts of [start, end) not covered by ``busy``, in order."""
    gaps, cursor = [], start
    for b_start, b_end in sorted(busy):
        if b_start > cursor:
            gaps.append((cursor, min(b_start, end)))
        cursor = max(cursor, b_end)
        if cursor >= end:
            break
    if cursor < end:
        gaps.append((cursor, end))
    return [(a, b) for a, b in gaps if a < b]


def _free_hosts(gaps_by_host: Sequence[list], start: datetime.datetime,
                end: datetime.datetime) -> list:
    """Step function of the number of hosts free at each moment."""
    changes: dict = {}
    for gaps in gaps_by_host:
        for a, b in gaps:
            changes[a] = changes.get(a, 0) + 1
            changes[b] = changes.get(b, 0) - 1
    points = sorted(set(changes) | {start, end})
    steps, level = [], 0
    for here, there in zip(points, points[1:]):
        level += changes.get(here, 0)
        if steps and steps[-1][2] == level:
            steps[-1] = (steps[-1][0], there, level)
        else:
            steps.append((here, there, level))
    return steps


def _slots(gaps_by_host: Sequence[list], count: int,
           duration: datetime.timedelta) -> list:
    """Intervals where ``count`` hosts each have a gap of ``duration``.

    A gap [a, b) lets a lease start anywhere in [a, b - duration]; a sweep
    over those closed start ranges finds the start times ``count`` hosts
    share, and each range of starts [x, y] becomes the slot
    [x, y + duration). Two slots may overlap: a window across both would
    not find ``count`` hosts free throughout, so they are not joined.
    """
    events = []
    for gaps in gaps_by_host:
        for a, b in gaps:
            if b - a >= duration:
                # Opening (0) sorts before closing (1) at the same time:
                # start ranges are closed, so touching ranges join.
                events.append((a, 0))
                events.append((b - duration, 1))
    events.sort()
    slots, level, opened = [], 0, None
    for when, kind in events:
        if kind == 0:
            level += 1
            if level == count:
                opened = when
        else:
            if level == count:
                slots.append((opened, when + duration))
            level -= 1
    return slots


def compute(busy_by_host: Mapping, start: datetime.datetime,
            end: datetime.datetime, count: int,
            duration: datetime.timedelta) -> Availability:
    """Availability of the hosts of ``busy_by_host`` ({host: [busy]})."""
    gaps = [free_gaps(busy, start, end) for busy in busy_by_host.values()]
    return Availability(matching_hosts=len(busy_by_host),
                        free_hosts=_free_hosts(gaps, start, end),
                        slots=_slots(gaps, count, duration))
