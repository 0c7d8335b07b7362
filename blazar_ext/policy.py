"""Policy enforcement with oslo.policy and the in-code defaults."""

import sys

from oslo_config import cfg
from oslo_policy import policy

from blazar_ext import exceptions
from blazar_ext import policies

CONF = cfg.CONF
_ENFORCER = None
# Stands for "no project" in targets. oslo.policy compares strings, so a
# None target project would match the None project of a token scoped to
# no project (unscoped, domain or system scope) in the owner rule
# "project_id:%(project_id)s"; nothing matches this.
NO_PROJECT = '<no project>'


def init(conf: cfg.ConfigOpts = CONF) -> policy.Enforcer:
    """Create the enforcer once; policy.yaml overrides the defaults."""
    global _ENFORCER
    if _ENFORCER is None:
        _ENFORCER = policy.Enforcer(conf)
        _ENFORCER.register_defaults(policies.list_rules())
    return _ENFORCER


def reset() -> None:
    global _ENFORCER
    if _ENFORCER is not None:
        _ENFORCER.clear()
    _ENFORCER = None


def get_enforcer() -> policy.Enforcer:
    """Entry point for oslopolicy-* tools."""
    conf = cfg.ConfigOpts()
    conf([a for a in sys.argv[1:] if a.startswith('--config-')],
         project='blazar-ext')
    return init(conf)


def authorize(context, action: str, target: dict | None = None,
              do_raise: bool = True) -> bool:
    """Check ``action`` for ``context``; raise PolicyNotAuthorized if denied.

    The default target is the caller's own project, so owner rules pass for
    resources that have no project of their own.
    """
    if target is None:
        target = {'project_id': context.project_id,
                  'user_id': context.user_id}
    if target.get('project_id') is None:
        target = dict(target, project_id=NO_PROJECT)
    credentials = context.to_policy_values()
    try:
        return init().authorize(action, target, credentials,
                                do_raise=do_raise,
                                exc=exceptions.PolicyNotAuthorized,
                                action=action)
    except policy.InvalidScope:
        # A token of a scope the rule does not take (system scope on a
        # project-only rule) is refused like any other denial.
        raise exceptions.PolicyNotAuthorized(action=action)
