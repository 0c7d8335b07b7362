"""Pure arithmetic of the fair-use rules: peaks of concurrent use and the
most time held within any window of a given length."""

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
    best = datetime.timedelta(0)
    best_start = None
    starts = [s for s, _ in held] + [e - span for _, e in held]
    for t in starts:
        covered = sum((min(e, t + span) - max(s, t)
                       for s, e in held if s < t + span and e > t),
                      datetime.timedelta(0))
        if covered > best:
            best, best_start = covered, t
    return best, best_start


def hours(delta: datetime.timedelta) -> str:
    value = delta.total_seconds() / 3600
    return ('%d' % value) if value == int(value) else ('%.2f' % value)
