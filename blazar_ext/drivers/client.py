"""A keystoneauth1 adapter for a service named by a config group."""

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from blazar_ext import exceptions

CONF = cfg.CONF


def adapter(group: str, **kwargs):
    """The service of [group]: its auth, session and endpoint options."""
    auth = ks_loading.load_auth_from_conf_options(CONF, group)
    session = ks_loading.load_session_from_conf_options(CONF, group,
                                                        auth=auth)
    return ks_loading.load_adapter_from_conf_options(
        CONF, group, session=session, auth=auth, **kwargs)


class ServiceClient:
    """Calls the service of ``[SERVICE]`` through a keystoneauth adapter
    made on first use, so loading a driver needs no endpoint; tests pass
    their own ``api``."""

    SERVICE = ''

    def __init__(self, api=None):
        self._api = api

    @property
    def api(self):
        if self._api is None:
            self._api = adapter(self.SERVICE)
        return self._api


def get_json(api, url: str, what: str, **kwargs) -> dict:
    """GET ``url`` as JSON; HealthSourceError naming ``what`` on failure."""
    try:
        resp = api.get(url, raise_exc=True, **kwargs)
        return resp.json()
    except (ks_exc.ClientException, ValueError) as exc:
        raise exceptions.HealthSourceError(
            reason='%s could not be read: %s' % (what, exc))
