"""An enforcement filter written as doc/source/contributor/enforcement-filter
says: one class on BaseFilter, one option group, one entry point.

The tests register it under the entry point name ``OneReservationFilter``
(fixtures.EntryPointFixture) and enable it in [enforcement]
enabled_filters.
"""

from oslo_config import cfg

from blazar_ext.enforcement import base

GROUP = 'enforcement_one_reservation'
OPTS = [
    cfg.IntOpt('max_reservations', default=1, min=1,
               help='Most reservations one lease may hold.'),
]


class OneReservationFilter(base.BaseFilter):
    """Denies a lease holding more than max_reservations reservations."""

    def __init__(self, conf: cfg.ConfigOpts):
        super().__init__(conf)
        conf.register_opts(OPTS, group=GROUP)

    def _check(self, lease: dict) -> None:
        limit = self.conf[GROUP].max_reservations
        count = len(lease.get('reservations') or [])
        if count > limit:
            raise self.reject('A lease may hold at most %d reservation(s); '
                              'this one asks for %d.' % (limit, count))

    def check_create(self, context: dict, lease: dict) -> None:
        self._check(lease)

    def check_update(self, context: dict, current_lease: dict,
                     lease: dict) -> None:
        self._check(lease)
