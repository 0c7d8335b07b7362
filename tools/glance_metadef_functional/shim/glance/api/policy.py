"""Stand-in for ``glance.api.policy``, as Glance's metadef policy tests
use it.

Those tests build ``policy.Enforcer()``, change its rules with
``set_rules`` while the API runs, and patch ``policy.Enforcer`` around
start_server so the API uses theirs. blazar_ext's metadefs policies carry
Glance's rule names, so handing them blazar_ext's own enforcer (the one
its API checks) makes their rule changes act on blazar_ext.
"""

from oslo_policy import policy as oslo_policy

from blazar_ext import conf
from blazar_ext import policy as ext_policy


def Enforcer(**_kwargs) -> oslo_policy.Enforcer:  # noqa: N802
    """blazar_ext's enforcer, with its defaults registered."""
    return ext_policy.init(conf.CONF)
