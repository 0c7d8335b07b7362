"""[notifications] options: the outbox, webhook subscriptions and their
delivery by the managers."""

from oslo_config import cfg

GROUP = cfg.OptGroup('notifications', title='Lifecycle notifications')

ALL_OPTS = [
    cfg.BoolOpt('allow_private_targets', default=False,
                help='Let webhook subscriptions target loopback, '
                     'link-local, private and other non-global addresses. '
                     'Off, such URLs are refused (400) and a name that '
                     'resolves to one is not delivered to.'),
    cfg.FloatOpt('delivery_interval', default=1.0, min=0.01,
                 help='Seconds between two polls of the outbox by a '
                      'manager. A manager that records an event a '
                      'subscription may hear wakes its own delivery at '
                      'once.'),
    cfg.IntOpt('delivery_workers', default=16, min=1,
               help='Webhook deliveries a manager makes at once.'),
    cfg.IntOpt('batch_size', default=200, min=1,
               help='Deliveries a manager claims in one go.'),
    cfg.FloatOpt('delivery_timeout', default=10.0, min=0.01,
                 help='Seconds to connect, send and read the answer of one '
                      'webhook delivery; past them the attempt failed.'),
    cfg.IntOpt('claim_timeout', default=120, min=1,
               help='Seconds after which a delivery or notification a '
                    'manager claimed and did not finish (it died) is taken '
                    'over by another. Must exceed delivery_timeout.'),
    cfg.IntOpt('max_attempts', default=10, min=1,
               help='Attempts of one webhook delivery before it is '
                    'dead-lettered.'),
    cfg.FloatOpt('retry_base', default=2.0, min=0.0,
                 help='Seconds before the first retry; each retry waits '
                      'twice as long as the one before (with jitter: '
                      'between half and all of it).'),
    cfg.FloatOpt('retry_max', default=3600.0, min=0.0,
                 help='Longest wait between two attempts, in seconds.'),
    cfg.IntOpt('max_response_bytes', default=65536, min=0,
               help='Bytes of a receiver\'s answer read (and kept, cut, in '
                    'the delivery\'s error) at most.'),
    cfg.IntOpt('max_event_bytes', default=1048576, min=1024,
               help='Largest webhook body: past it the lease in ``data`` is '
                    'cut to its id, name, project, dates and status.'),
    cfg.StrOpt('event_source', default='/blazar-ext',
               help='The CloudEvents ``source`` of every event sent.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(GROUP)
    conf.register_opts(ALL_OPTS, group=GROUP)


def list_opts() -> dict:
    return {GROUP: ALL_OPTS}
