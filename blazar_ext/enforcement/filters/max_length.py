"""MaximumReservationLengthFilter: leases may not last longer than a limit."""

from blazar_ext.enforcement import base
from blazar_ext.enforcement import payload


def _describe(seconds: float) -> str:
    """Human length: "1 day", "1 day 2 hours 1 minute", "45 seconds"."""
    remaining = int(seconds)
    parts = []
    for unit, size in (('day', 86400), ('hour', 3600), ('minute', 60),
                       ('second', 1)):
        count, remaining = divmod(remaining, size)
        if count:
            parts.append('%d %s%s' % (count, unit, '' if count == 1 else 's'))
    return ' '.join(parts) or '0 seconds'


class MaximumReservationLengthFilter(base.BaseFilter):
    """Deny leases longer than [enforcement] reservation_max_length seconds.

    0 (the default) means no limit. Updates are checked on the new dates.
    """

    aliases = ('MaxLeaseDurationFilter',)

    @property
    def active(self) -> bool:
        return bool(self.conf.enforcement.reservation_max_length)

    def _check(self, lease: dict) -> None:
        limit = self.conf.enforcement.reservation_max_length
        if not limit:
            return
        start = payload.parse_date(lease.get('start_date'))
        end = payload.parse_date(lease.get('end_time',
                                           lease.get('end_date')))
        if start is None or end is None:
            # Dates are validated before the chain runs; nothing to measure.
            return
        length = (end - start).total_seconds()
        if length > limit:
            raise self.reject(
                'Lease length of %s exceeds the maximum allowed of %s.'
                % (_describe(length), _describe(limit)))

    def check_create(self, context: dict, lease: dict) -> None:
        self._check(lease)

    def check_update(self, context: dict, current_lease: dict,
                     lease: dict) -> None:
        self._check(lease)


# Upstream Blazar's name for the same filter, for module-path loading.
MaxLeaseDurationFilter = MaximumReservationLengthFilter
