"""Pure arithmetic of the fair-use rules: peaks of concurrent use and the
most time held within any window of a given length."""

import bisect
import datetime
from typing import Iterable

Interval = tuple  # (start, end, amount)


def peak(intervals: Iterable[Interval]):
    """(highest total amount held at one time, when it starts); (0, None)
    for nothing. An interval ending when another starts does not
    overlap it."""
    points = []
    for start, end, amount in intervals:
        if end > start:
            points.append((start, 1, amount))
            points.append((end, 0, -amount))
    points.sort(key=lambda p: (p[0], p[1]))
    level = best = 0
    when = None
    for time, _, change in points:
        level += change
        if level > best:
            best, when = level, time
    return best, when


def merged(windows: Iterable[tuple]) -> list:
    """[(start, end)] joined where they touch or overlap (back-to-back
    leases count as one hold)."""
    out = []
    for start, end in sorted(windows):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def most_held(windows: Iterable[tuple], span: datetime.timedelta):
    """(the most time held within any ``span``, where that span starts)."""
    held = merged(windows)
    starts = [s for s, _ in held]
    ends = [e for _, e in held]
    # total[i]: the time held by the first i (disjoint, sorted) windows.
    total = [datetime.timedelta(0)]
    for start, end in held:
        total.append(total[-1] + (end - start))
    best = datetime.timedelta(0)
    best_start = None
    # The best span starts where a window starts or ends where one ends.
    for t in starts + [e - span for e in ends]:
        first = bisect.bisect_right(ends, t)
        last = bisect.bisect_left(starts, t + span) - 1
        if last < first:
            continue
        covered = (total[last + 1] - total[first]
                   - max(datetime.timedelta(0), t - starts[first])
                   - max(datetime.timedelta(0), ends[last] - (t + span)))
        if covered > best:
            best, best_start = covered, t
    return best, best_start


def hours(delta: datetime.timedelta) -> str:
    value = delta.total_seconds() / 3600
    return ('%d' % value) if value == int(value) else ('%.2f' % value)
