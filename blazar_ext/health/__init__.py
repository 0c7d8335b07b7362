"""Health sources: where the manager learns that hosts are down.

A source is loaded by name from the ``blazar_ext.health_sources``
stevedore namespace ([health] source). The manager hands it the hosts it
claimed and takes each host it reports down out of service (healing its
reservations), and brings back those it reports up again, if that same
source took them out.
"""

import abc

from oslo_config import cfg

from blazar_ext import drivers
from blazar_ext import exceptions

CONF = cfg.CONF
NAMESPACE = 'blazar_ext.health_sources'


class HealthSource(metaclass=abc.ABCMeta):
    """Tells which hosts are up."""

    #: The name hosts taken out by this source are marked with.
    name = ''

    @abc.abstractmethod
    def check(self, hosts: list) -> dict:
        """{host id: None (up) or the reason it is down}.

        ``hosts`` are dicts with ``id``, ``name`` (hypervisor_hostname)
        and ``service_name``. A host left out of the answer is unknown to
        the source and keeps its state. Raise HealthSourceError when the
        service cannot be asked: nothing changes then.
        """


class NoHealthSource(HealthSource):
    """Hosts change state only through the operator."""

    name = 'none'

    def check(self, hosts: list) -> dict:
        return {}


def load(name: str | None = None) -> HealthSource:
    """The configured source; a bad name is a clear error."""
    name = name or CONF.health.source
    return drivers.load(NAMESPACE, name, 'health source',
                        exceptions.HealthSourceError)
