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
    1.3 - resource_call(resource_type, operation, payload): registering,
          describing, unregistering and taking out of service the
          resources of any type, through its plugin; replaces the per-type
          calls of 1.0 and 1.1 (create_host, update_host, delete_host,
          create_floatingip, delete_floatingip), which a 1.3 manager still
          serves for an API pinned below 1.3
    1.4 - lease_extension (advice, read-only); create_lease takes a
          flexible lease (not_after and a duration instead of dates)
    1.5 - lease series: create_lease_series, update_lease_series,
          delete_lease_series, skip_lease_series_date; maintenance
          windows: schedule_maintenance, update_maintenance,
          cancel_maintenance
    1.6 - plan_lease: a slot search whose reservations share a pool,
          whose options are checked by allocations rolled back (the
          manager's writes, even undone)
    1.7 - schedule_maintenance takes resource_type (maintenance windows
          on floating IPs); a window on a host is still sent as 1.5
    1.8 - create_lease(return_lease=True) answers with the lease created,
          as the API would read it back (its reservations' details and
          events), which saves the API that read; without it, {'id'}
"""

from concurrent import futures

import kombu.exceptions
from oslo_config import cfg
import oslo_messaging as messaging

from blazar_ext import context as blazar_context
from blazar_ext import exceptions
from blazar_ext import rpc

CONF = cfg.CONF

RPC_API_VERSION = '1.8'

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

    def _call(self, context, method: str, version: str = '1.0',
              namespace: str | None = None, **kwargs):
        if _LOCAL_ENDPOINT is not None:
            return _call_local(context, method, kwargs, namespace)
        if not self._client.can_send_version(version):
            raise exceptions.ServiceUnavailable(
                reason='%s needs manager RPC API %s, but [manager] '
                       'rpc_version pins it to %s during an upgrade; try '
                       'again once the managers are upgraded'
                       % (method, version, CONF.manager.rpc_version))
        client = self._client.prepare(version=version, namespace=namespace)
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
                reason='the manager cannot be reached (%s); try again '
                       'later' % type(exc).__name__)

    # Resources of any type

    def resource_call(self, context, resource_type: str, operation: str,
                      payload: dict):
        """``operation`` ('create', 'update', 'delete') on a resource of
        ``resource_type``: payload {'id': ..., 'values': {...}}.

        Pinned below 1.3 (rolling upgrade), the type's own call of the
        older API (its plugin's ``legacy_rpc``) goes instead; a type
        without one needs 1.3 (503 naming the pin)."""
        legacy = None
        if _LOCAL_ENDPOINT is None and not self._client.can_send_version(
                '1.3'):
            legacy = _legacy_call(resource_type, operation)
        if legacy is None:
            return self._call(context, 'resource_call', version='1.3',
                              resource_type=resource_type,
                              operation=operation, payload=payload)
        method, version, id_name = legacy
        kwargs = {}
        if id_name is not None:
            kwargs[id_name] = payload['id']
        if operation != 'delete':
            kwargs['values'] = payload.get('values') or {}
        return self._call(context, method, version=version, **kwargs)

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
        """The lease created, with its details and events (1.8); from an
        API pinned below 1.8, {'id': its id} alone."""
        if _LOCAL_ENDPOINT is not None or self._client.can_send_version(
                '1.8'):
            return self._call(context, 'create_lease', version='1.8',
                              private_visible=private_visible,
                              values=values, return_lease=True)
        # A flexible lease (not_after, no dates) needs a 1.4 manager.
        flexible = 'not_after' in values and 'start_date' not in values
        if flexible or _LOCAL_ENDPOINT is not None or (
                self._client.can_send_version('1.4')):
            return self._call(context, 'create_lease', version='1.4',
                              private_visible=private_visible,
                              values=values)
        return self._lease_call(context, 'create_lease', private_visible,
                                values=values)

    def update_lease(self, context, lease_id: str, values: dict,
                     private_visible: bool = False) -> dict:
        return self._lease_call(context, 'update_lease', private_visible,
                                lease_id=lease_id, values=values)

    def delete_lease(self, context, lease_id: str) -> None:
        return self._call(context, 'delete_lease', version='1.1',
                          lease_id=lease_id)

    def lease_extension(self, context, lease_id: str) -> dict:
        return self._call(context, 'lease_extension', version='1.4',
                          lease_id=lease_id)

    def plan_lease(self, context, values: dict, private_visible: bool,
                   with_resources: bool) -> list:
        return self._call(context, 'plan_lease', version='1.6',
                          values=values, private_visible=private_visible,
                          with_resources=with_resources)

    # Resource properties

    def update_property(self, context, resource_type: str, name: str,
                        private: bool) -> dict:
        return self._call(context, 'update_property', version='1.2',
                          resource_type=resource_type, name=name,
                          private=private)

    # Lease series and maintenance windows (1.5)

    def create_lease_series(self, context, values: dict,
                            private_visible: bool = False) -> dict:
        return self._call(context, 'create_lease_series', version='1.5',
                          values=values, private_visible=private_visible)

    def update_lease_series(self, context, series_id: str, values: dict,
                            private_visible: bool = False) -> dict:
        return self._call(context, 'update_lease_series', version='1.5',
                          series_id=series_id, values=values,
                          private_visible=private_visible)

    def delete_lease_series(self, context, series_id: str) -> list:
        return self._call(context, 'delete_lease_series', version='1.5',
                          series_id=series_id)

    def skip_lease_series_date(self, context, series_id: str,
                               date: str) -> dict:
        return self._call(context, 'skip_lease_series_date', version='1.5',
                          series_id=series_id, date=date)

    def schedule_maintenance(self, context, host_id: str, values: dict,
                             resource_type: str | None = None) -> dict:
        """A window on the host ``host_id`` (1.5), or on the
        ``resource_type`` resource of that id (1.7)."""
        if resource_type is None:
            return self._call(context, 'schedule_maintenance',
                              version='1.5', host_id=host_id, values=values)
        return self._call(context, 'schedule_maintenance', version='1.7',
                          host_id=host_id, values=values,
                          resource_type=resource_type)

    def update_maintenance(self, context, maintenance_id: str,
                           values: dict) -> dict:
        return self._call(context, 'update_maintenance', version='1.5',
                          maintenance_id=maintenance_id, values=values)

    def cancel_maintenance(self, context, maintenance_id: str) -> None:
        return self._call(context, 'cancel_maintenance', version='1.5',
                          maintenance_id=maintenance_id)


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


def _call_local(context, method: str, kwargs: dict,
                namespace: str | None = None):
    copied = blazar_context.RequestContext.from_dict(context.to_dict())
    # An endpoint of another namespace is an attribute of the manager's.
    endpoint = (getattr(_LOCAL_ENDPOINT, namespace) if namespace
                else _LOCAL_ENDPOINT)
    try:
        return getattr(endpoint, method)(copied, **kwargs)
    except messaging.ExpectedException as wrapped:
        # The endpoint marks its domain errors for the RPC server, which
        # unwraps them; do as it does.
        raise wrapped.exc_info[1] from None


def _legacy_call(resource_type: str, operation: str) -> tuple | None:
    """(method, version, id keyword) of the pre-1.3 call standing for
    ``operation`` on ``resource_type``, as its plugin declares."""
    # Imported here: the plugins import the database layer, which the
    # RPC client does not need otherwise.
    from blazar_ext.plugins import loader
    plugin = loader.get().by_type.get(resource_type)
    if plugin is None:
        return None
    return plugin.legacy_rpc.get(operation)


def get_client() -> ManagerClient:
    global _CLIENT
    if _CLIENT is None:
        _CLIENT = ManagerClient()
    return _CLIENT


def reset_client() -> None:
    global _CLIENT, _LOCAL_ENDPOINT
    _CLIENT = None
    _LOCAL_ENDPOINT = None
