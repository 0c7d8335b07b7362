"""The API's view of the manager: a versioned RPC client.

Every remote method is declared here and on the manager's endpoint; nothing
is dispatched by name. Bump ``RPC_API_VERSION`` (minor for additions) when the
interface changes, and pin it in rolling upgrades with [manager] rpc_version.

History:
    1.0 - hosts: create_host, update_host, delete_host
    1.1 - leases: create_lease, update_lease, delete_lease;
          floating IPs: create_floatingip, delete_floatingip
    1.2 - create_lease, update_lease: private_visible, the API's policy
          decision on private capabilities (the manager checks no policy);
          properties: update_property (a capability's private flag)
    1.3 - lease series: create_lease_series, update_lease_series,
          delete_lease_series, skip_lease_series_date; maintenance
          windows: schedule_maintenance, update_maintenance,
          cancel_maintenance
"""

from concurrent import futures

import kombu.exceptions
from oslo_config import cfg
import oslo_messaging as messaging

from blazar_ext import context as blazar_context
from blazar_ext import exceptions
from blazar_ext import rpc

CONF = cfg.CONF

RPC_API_VERSION = '1.3'

# Seconds allowed on top of [manager] rpc_timeout before a call is given up.
DEADLINE_MARGIN = 2.0
# Calls in flight at once; a call stuck on a dead broker holds one.
MAX_CALLS_IN_FLIGHT = 32


class ManagerClient:
    """Calls the manager; broker trouble becomes ServiceUnavailable.

    Every call runs in a bounded pool under an overall deadline: when the
    broker is unreachable, oslo.messaging's reply-queue connection retries
    forever whatever ``retry`` says, and the API must answer 503 instead of
    hanging. A stuck call finishes by itself once the broker is back.
    """

    def __init__(self):
        self._pool = futures.ThreadPoolExecutor(
            MAX_CALLS_IN_FLIGHT, thread_name_prefix='manager-rpc')
        self._deadline = CONF.manager.rpc_timeout + DEADLINE_MARGIN
        target = messaging.Target(topic=CONF.manager.topic,
                                  version=RPC_API_VERSION)
        self._client = messaging.get_rpc_client(
            rpc.get_transport(), target,
            version_cap=CONF.manager.rpc_version,
            serializer=rpc.ContextSerializer(),
            timeout=CONF.manager.rpc_timeout,
            retry=CONF.api.rpc_retry)

    def _call(self, context, method: str, version: str = '1.0', **kwargs):
        if _LOCAL_ENDPOINT is not None:
            return _call_local(context, method, kwargs)
        if not self._client.can_send_version(version):
            raise exceptions.ServiceUnavailable(
                reason='%s needs manager RPC API %s, but [manager] '
                       'rpc_version pins it to %s during an upgrade; try '
                       'again once the managers are upgraded'
                       % (method, version, CONF.manager.rpc_version))
        client = self._client.prepare(version=version)
        call = self._pool.submit(client.call, context, method, **kwargs)
        try:
            return call.result(timeout=self._deadline)
        except futures.TimeoutError:
            call.cancel()
            raise exceptions.ServiceUnavailable(
                reason='the manager cannot be reached (no answer from the '
                       'message broker within %ds); try again later'
                       % self._deadline)
        except messaging.MessagingTimeout:
            raise exceptions.ServiceUnavailable(
                reason='the manager did not answer in time; try again later')
        except (messaging.MessageDeliveryFailure,
                messaging.MessagingServerError,
                messaging.exceptions.InvalidTarget,
                # A broker that goes away mid-call: the rabbit driver lets
                # kombu's error through once [api] rpc_retry is spent.
                kombu.exceptions.OperationalError) as exc:
            raise exceptions.ServiceUnavailable(
                reason='the manager cannot be reached (%s)'
                       % type(exc).__name__)

    # Hosts

    def create_host(self, context, values: dict) -> dict:
        return self._call(context, 'create_host', values=values)

    def update_host(self, context, host_id: str, values: dict) -> dict:
        return self._call(context, 'update_host', host_id=host_id,
                          values=values)

    def delete_host(self, context, host_id: str) -> None:
        return self._call(context, 'delete_host', host_id=host_id)

    # Leases

    def _lease_call(self, context, method: str, private_visible: bool,
                    **kwargs):
        # A 1.1 manager (rolling upgrade) takes no private_visible; it
        # then lets nobody name private capabilities.
        if _LOCAL_ENDPOINT is not None or self._client.can_send_version(
                '1.2'):
            return self._call(context, method, version='1.2',
                              private_visible=private_visible, **kwargs)
        return self._call(context, method, version='1.1', **kwargs)

    def create_lease(self, context, values: dict,
                     private_visible: bool = False) -> dict:
        return self._lease_call(context, 'create_lease', private_visible,
                                values=values)

    def update_lease(self, context, lease_id: str, values: dict,
                     private_visible: bool = False) -> dict:
        return self._lease_call(context, 'update_lease', private_visible,
                                lease_id=lease_id, values=values)

    def delete_lease(self, context, lease_id: str) -> None:
        return self._call(context, 'delete_lease', version='1.1',
                          lease_id=lease_id)

    # Resource properties

    def update_property(self, context, resource_type: str, name: str,
                        private: bool) -> dict:
        return self._call(context, 'update_property', version='1.2',
                          resource_type=resource_type, name=name,
                          private=private)

    # Lease series and maintenance windows (1.3)

    def create_lease_series(self, context, values: dict,
                            private_visible: bool = False) -> dict:
        return self._call(context, 'create_lease_series', version='1.3',
                          values=values, private_visible=private_visible)

    def update_lease_series(self, context, series_id: str, values: dict,
                            private_visible: bool = False) -> dict:
        return self._call(context, 'update_lease_series', version='1.3',
                          series_id=series_id, values=values,
                          private_visible=private_visible)

    def delete_lease_series(self, context, series_id: str) -> list:
        return self._call(context, 'delete_lease_series', version='1.3',
                          series_id=series_id)

    def skip_lease_series_date(self, context, series_id: str,
                               date: str) -> dict:
        return self._call(context, 'skip_lease_series_date', version='1.3',
                          series_id=series_id, date=date)

    def schedule_maintenance(self, context, host_id: str,
                             values: dict) -> dict:
        return self._call(context, 'schedule_maintenance', version='1.3',
                          host_id=host_id, values=values)

    def update_maintenance(self, context, maintenance_id: str,
                           values: dict) -> dict:
        return self._call(context, 'update_maintenance', version='1.3',
                          maintenance_id=maintenance_id, values=values)

    def cancel_maintenance(self, context, maintenance_id: str) -> None:
        return self._call(context, 'cancel_maintenance', version='1.3',
                          maintenance_id=maintenance_id)

    # Floating IPs

    def create_floatingip(self, context, values: dict) -> dict:
        return self._call(context, 'create_floatingip', version='1.1',
                          values=values)

    def delete_floatingip(self, context, floatingip_id: str) -> None:
        return self._call(context, 'delete_floatingip', version='1.1',
                          floatingip_id=floatingip_id)


_CLIENT = None
# The manager's endpoint when it runs in this very process (all-in-one).
_LOCAL_ENDPOINT = None


def serve_locally(endpoint) -> None:
    """Call ``endpoint`` (the manager, in this process) directly.

    For the embedded default on the fake:// transport, whose listener
    polls every 50 ms: a direct call saves that wait on every write. The
    manager still does every write; the context is copied as RPC would.
    ``None`` goes back to RPC.
    """
    global _LOCAL_ENDPOINT
    _LOCAL_ENDPOINT = endpoint


def _call_local(context, method: str, kwargs: dict):
    copied = blazar_context.RequestContext.from_dict(context.to_dict())
    try:
        return getattr(_LOCAL_ENDPOINT, method)(copied, **kwargs)
    except messaging.ExpectedException as wrapped:
        # The endpoint marks its domain errors for the RPC server, which
        # unwraps them; do as it does.
        raise wrapped.exc_info[1] from None


def get_client() -> ManagerClient:
    global _CLIENT
    if _CLIENT is None:
        _CLIENT = ManagerClient()
    return _CLIENT


def reset_client() -> None:
    global _CLIENT, _LOCAL_ENDPOINT
    _CLIENT = None
    _LOCAL_ENDPOINT = None
