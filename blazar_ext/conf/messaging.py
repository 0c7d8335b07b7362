"""oslo.messaging's [DEFAULT] transport options, registered up front so
that transport_url can be set before the first transport is created."""

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging import opts as messaging_opts


def register_opts(conf: cfg.ConfigOpts) -> None:
    messaging.set_transport_defaults(control_exchange='blazar_ext')
    for group, opts in messaging_opts.list_opts():
        if group is None:
            conf.register_opts(opts)


def list_opts() -> dict:
    # oslo-config-generator lists these under the oslo.messaging namespace.
    return {}
