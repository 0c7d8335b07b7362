"""Entry points for oslo-config-generator."""

import collections

from blazar_ext import conf


def list_opts() -> list:
    """Return [(group, [opts])] for every option blazar_ext registers."""
    grouped = collections.OrderedDict()
    for module in conf.MODULES:
        for group, opts in module.list_opts().items():
            grouped.setdefault(group, []).extend(opts)
    return list(grouped.items())


def set_defaults() -> None:
    """Apply blazar_ext's defaults for options owned by libraries."""
    conf.database.register_opts(conf.CONF)
