"""The cost of a lease: resources x hours x rate, as rate lines.

Pure code. The caller says what the lease holds (``Item``s) and how to
tell which of some hosts a host rate's expression matches (``matching``,
a database query in the manager); the first rate matching a resource
prices it.
"""

import dataclasses
import datetime
import decimal
from typing import Callable, Iterable

from blazar_ext.enforcement import rates as rates_mod

HOUR = decimal.Decimal(3600)


@dataclasses.dataclass
class Item:
    """What one reservation holds (or would hold)."""

    resource_type: str
    count: int = 0
    host_ids: tuple = ()
    vcpus: int = 0
    memory_mb: int = 0
    reservation_id: str | None = None


def hours(start: datetime.datetime, end: datetime.datetime
          ) -> decimal.Decimal:
    """The window's length in hours (0 if it is empty)."""
    seconds = max(0, int((end - start).total_seconds()))
    return decimal.Decimal(seconds) / HOUR


def _line(item: Item, rate_index, rate: dict | None, count: int,
          per_hour: decimal.Decimal, length: decimal.Decimal) -> dict:
    return {'reservation_id': item.reservation_id,
            'resource_type': item.resource_type,
            'rate': rate_index,
            'properties': rate.get('properties') if rate else None,
            'count': count, 'hours': length,
            'credits_per_hour': per_hour,
            'cost': (per_hour * count * length).quantize(
                rates_mod.QUANTUM, decimal.ROUND_HALF_UP)}


def _host_lines(item: Item, rates: list, length, default,
                matching: Callable) -> list:
    left = set(item.host_ids)
    lines = []
    for index, rate in enumerate(rates):
        if not left:
            break
        if rate['resource_type'] != item.resource_type:
            continue
        if rate['properties'] is None:
            matched = set(left)
        else:
            matched = set(matching(rate['properties'], sorted(left)))
        if matched:
            left -= matched
            lines.append(_line(item, index, rate, len(matched),
                               rate['credits_per_hour'], length))
    if left:
        lines.append(_line(item, None, None, len(left), default, length))
    return lines


def _first(rates: list, resource_type: str):
    for index, rate in enumerate(rates):
        if rate['resource_type'] == resource_type:
            return index, rate
    return None, None


def _instance_per_hour(rate: dict, item: Item) -> decimal.Decimal:
    return (rate['credits_per_hour']
            + rate['credits_per_vcpu_hour'] * item.vcpus
            + rate['credits_per_gb_hour'] * decimal.Decimal(
                item.memory_mb) / 1024)


def lines(items: Iterable[Item], rates: list, start: datetime.datetime,
          end: datetime.datetime, default, matching: Callable) -> list:
    """The rate lines of the items over [start, end]."""
    length = hours(start, end)
    default = decimal.Decimal(str(default))
    out = []
    for item in items:
        if item.resource_type == rates_mod.HOST_TYPE:
            out.extend(_host_lines(item, rates, length, default, matching))
            continue
        if not item.count:
            continue
        index, rate = _first(rates, item.resource_type)
        if rate is None:
            per_hour = default
        elif item.resource_type in rates_mod.INSTANCE_TYPES:
            per_hour = _instance_per_hour(rate, item)
        else:
            per_hour = rate['credits_per_hour']
        out.append(_line(item, index, rate, item.count, per_hour, length))
    return out


def total(rate_lines: list) -> decimal.Decimal:
    return sum((line['cost'] for line in rate_lines), decimal.Decimal(0))


def shown(rate_lines: list) -> list:
    """Rate lines as JSON numbers."""
    return [dict(line, hours=float(line['hours']),
                 credits_per_hour=float(line['credits_per_hour']),
                 cost=float(line['cost'])) for line in rate_lines]
