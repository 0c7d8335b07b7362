"""oslo.messaging plumbing: transport, serializer, notifier."""

from oslo_config import cfg
import oslo_messaging as messaging

from blazar_ext import context as blazar_context

CONF = cfg.CONF

# Exceptions from these modules cross RPC and are re-raised as themselves.
ALLOWED_EXMODS = ['blazar_ext.exceptions']

_TRANSPORT = None
_NOTIFICATION_TRANSPORT = None


def init(conf: cfg.ConfigOpts = CONF) -> None:
    """Create the RPC and notification transports (transport_url)."""
    global _TRANSPORT, _NOTIFICATION_TRANSPORT
    if _TRANSPORT is None:
        _TRANSPORT = messaging.get_rpc_transport(
            conf, allowed_remote_exmods=ALLOWED_EXMODS)
    if _NOTIFICATION_TRANSPORT is None:
        _NOTIFICATION_TRANSPORT = messaging.get_notification_transport(conf)


def cleanup() -> None:
    global _TRANSPORT, _NOTIFICATION_TRANSPORT
    for transport in (_TRANSPORT, _NOTIFICATION_TRANSPORT):
        if transport is not None:
            transport.cleanup()
    _TRANSPORT = _NOTIFICATION_TRANSPORT = None


def get_transport() -> messaging.Transport:
    init()
    return _TRANSPORT


def get_notifier(publisher_id: str) -> messaging.Notifier:
    init()
    return messaging.Notifier(_NOTIFICATION_TRANSPORT,
                              publisher_id=publisher_id,
                              serializer=ContextSerializer())


class ContextSerializer(messaging.NoOpSerializer):
    """Carries the RequestContext across RPC as a dict."""

    def serialize_context(self, context):
        return context.to_dict()

    def deserialize_context(self, context):
        return blazar_context.RequestContext.from_dict(context)
