"""Configuration: every option group registers itself on the global CONF."""

from oslo_config import cfg

from blazar_ext.conf import api
from blazar_ext.conf import budgets
from blazar_ext.conf import database
from blazar_ext.conf import default
from blazar_ext.conf import enforcement
from blazar_ext.conf import health
from blazar_ext.conf import manager
from blazar_ext.conf import messaging
from blazar_ext.conf import metadefs
from blazar_ext.conf import metrics
from blazar_ext.conf import notifications
from blazar_ext.conf import placement_api
from blazar_ext.conf import plan

CONF = cfg.CONF

# One module per option group; opts.py lists them for the generator.
MODULES = [default, api, placement_api, database, manager, messaging,
           enforcement, metadefs, health, metrics, budgets,
           notifications, plan]

for _module in MODULES:
    _module.register_opts(CONF)
