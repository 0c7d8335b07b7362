"""Compute drivers: what an instance reservation asks of a compute
service at lease start and end.

Loaded by name from the ``blazar_ext.compute_drivers`` namespace
(``[manager] compute_driver``): ``none`` (the default: Placement alone
carries the reservation) and ``nova`` (a private flavor and, with
affinity, a server group in a real Nova, through keystoneauth1 and the
[nova] options).
"""

import abc

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg
from oslo_log import log as logging

from blazar_ext import drivers
from blazar_ext.drivers import client
from blazar_ext import exceptions

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


class ComputeDriver(metaclass=abc.ABCMeta):

    @abc.abstractmethod
    def reservation_started(self, context, reservation: dict,
                            flavor: dict) -> None:
        """Make ``flavor`` (the reservation's) usable by its project."""

    @abc.abstractmethod
    def reservation_ended(self, context, reservation: dict) -> None:
        """Undo reservation_started; nothing left must not be an error."""


class NoCompute(ComputeDriver):
    """No compute service: the Placement providers are the reservation."""

    def reservation_started(self, context, reservation, flavor) -> None:
        pass

    def reservation_ended(self, context, reservation) -> None:
        pass


class NovaCompute(client.ServiceClient, ComputeDriver):
    """A private flavor named after the reservation, its extra specs,
    access for the lease's project, and a server group for affinity."""

    SERVICE = 'nova'

    def _call(self, method: str, url: str, ok=(200, 201, 202, 204),
              **kwargs):
        try:
            resp = self.api.request(url, method, raise_exc=False, **kwargs)
        except ks_exc.ClientException as exc:
            raise exceptions.ServiceUnavailable(
                reason='nova %s %s: %s' % (method, url, exc))
        if resp.status_code not in ok:
            raise exceptions.ServiceUnavailable(
                reason='nova %s %s answered %d: %s'
                       % (method, url, resp.status_code, resp.text[:200]))
        return resp

    def reservation_started(self, context, reservation, flavor) -> None:
        flavor_id = reservation['id']
        # 409: the flavor is there already. Upstream Blazar makes it when
        # the reservation is made, so a reservation imported from it
        # (blazar-ext-manage import-blazar) has it; so has a start retried
        # after a manager died. Its extra specs and access still follow.
        self._call('POST', '/flavors', ok=(200, 201, 202, 204, 409),
                   json={'flavor': {
                       'id': flavor_id, 'name': flavor['name'],
                       'vcpus': flavor['vcpus'], 'ram': flavor['ram'],
                       'disk': flavor['disk'],
                       'os-flavor-access:is_public': False}})
        self._call('POST', '/flavors/%s/os-extra_specs' % flavor_id,
                   json={'extra_specs': flavor['extra_specs']})
        project_id = reservation.get('project_id')
        if project_id:
            # 409: the project has access already (a retried start).
            self._call('POST', '/flavors/%s/action' % flavor_id,
                       ok=(200, 202, 409),
                       json={'addTenantAccess': {'tenant': project_id}})
        policy = {True: 'affinity', False: 'anti-affinity'}.get(
            reservation.get('affinity'))
        # An imported reservation's server group upstream Blazar made (with
        # the same name, so reservation_ended removes it) is used as is.
        if policy and not reservation.get('server_group_id'):
            self._call('POST', '/os-server-groups', json={'server_group': {
                'name': flavor['name'], 'policies': [policy]}})

    def reservation_ended(self, context, reservation) -> None:
        name = flavor_name(reservation['id'])
        self._call('DELETE', '/flavors/%s' % reservation['id'],
                   ok=(202, 204, 404))
        groups = self._call('GET', '/os-server-groups?all_projects=True'
                            ).json().get('server_groups', [])
        for group in groups:
            if group.get('name') == name:
                self._call('DELETE', '/os-server-groups/%s' % group['id'],
                           ok=(204, 404))


def flavor_name(reservation_id: str) -> str:
    return 'reservation:%s' % reservation_id


def load(name: str | None = None) -> ComputeDriver:
    """The configured driver; a bad name is a configuration error."""
    name = name or CONF.manager.compute_driver
    return drivers.load('blazar_ext.compute_drivers', name,
                        '[manager] compute_driver')
