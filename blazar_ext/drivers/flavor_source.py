"""Where flavor:instance reservations learn a flavor's size and extra
specs: ``static`` (a YAML file, the default; etc/blazar-ext/flavors.yaml)
or ``nova`` (GET /flavors/{id} and its os-extra_specs through the [nova]
options). Loaded from the ``blazar_ext.flavor_sources`` namespace by
``[manager] flavor_source``.
"""

import abc
import os

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg
import yaml

from blazar_ext import drivers
from blazar_ext.drivers import client
from blazar_ext import exceptions

CONF = cfg.CONF


class FlavorSource(metaclass=abc.ABCMeta):

    @abc.abstractmethod
    def get(self, flavor_id: str) -> dict:
        """{'id', 'vcpus', 'ram', 'disk', 'ephemeral', 'extra_specs'};
        Invalid (400) naming the flavor when it is unknown."""


def _unknown(flavor_id: str) -> exceptions.Invalid:
    return exceptions.Invalid(
        reason='flavor:instance reservation: flavor %r is not known'
               % flavor_id)


class StaticFlavors(FlavorSource):
    """Flavors from ``[manager] flavors_file`` (read when it changes)."""

    def __init__(self):
        self._read = (None, None)

    def _flavors(self) -> dict:
        path = CONF.manager.flavors_file
        try:
            stamp = (path, os.stat(path).st_mtime)
        except OSError as exc:
            raise exceptions.ConfigurationError(
                reason='[manager] flavors_file %s: %s' % (path, exc))
        if self._read[0] != stamp:
            with open(path, encoding='utf-8') as f:
                data = yaml.safe_load(f) or {}
            self._read = (stamp, {str(item['id']): item
                                  for item in data.get('flavors') or []})
        return self._read[1]

    def get(self, flavor_id: str) -> dict:
        item = self._flavors().get(str(flavor_id))
        if item is None:
            raise _unknown(flavor_id)
        return {'id': str(item['id']), 'vcpus': int(item['vcpus']),
                'ram': int(item['ram']), 'disk': int(item.get('disk', 0)),
                'ephemeral': int(item.get('ephemeral', 0)),
                'extra_specs': dict(item.get('extra_specs') or {})}


class NovaFlavors(client.ServiceClient, FlavorSource):
    """Flavors as a real Nova has them."""

    SERVICE = 'nova'

    def get(self, flavor_id: str) -> dict:
        try:
            resp = self.api.get('/flavors/%s' % flavor_id, raise_exc=False)
            if resp.status_code == 404:
                raise _unknown(flavor_id)
            if resp.status_code != 200:
                raise ValueError('HTTP %d' % resp.status_code)
            flavor = resp.json()['flavor']
            specs = self.api.get('/flavors/%s/os-extra_specs' % flavor_id,
                                 raise_exc=True).json()['extra_specs']
        except (ks_exc.ClientException, ValueError, KeyError) as exc:
            raise exceptions.ServiceUnavailable(
                reason='nova flavor %s could not be read: %s'
                       % (flavor_id, exc))
        return {'id': flavor['id'], 'vcpus': flavor['vcpus'],
                'ram': flavor['ram'], 'disk': flavor.get('disk', 0),
                'ephemeral': flavor.get('OS-FLV-EXT-DATA:ephemeral', 0),
                'extra_specs': specs}


def load(name: str | None = None) -> FlavorSource:
    name = name or CONF.manager.flavor_source
    return drivers.load('blazar_ext.flavor_sources', name,
                        '[manager] flavor_source')
