"""Policy enforcement with oslo.policy and the in-code defaults."""

import ast
import functools
import inspect
import sys
import time

from oslo_config import cfg
from oslo_policy import _checks
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


# How long rules stay loaded before policy files are looked at again.
RELOAD_CHECK_SECONDS = 1.0


class Enforcer(policy.Enforcer):
    """oslo.policy's Enforcer, looking for policy file changes once a second.

    oslo.policy looks for the policy file and policy.d on every check:
    with no policy.yaml present that is a search of every configuration
    directory, twice per check (a fifth of a small GET). Edits to the
    files still take effect, within RELOAD_CHECK_SECONDS.
    """

    _next_check = 0.0

    def load_rules(self, force_reload: bool = False) -> None:
        now = time.monotonic()
        if force_reload or not self.rules or now >= self._next_check:
            super().load_rules(force_reload)
            self._next_check = now + RELOAD_CHECK_SECONDS

    def clear(self) -> None:
        super().clear()
        self._next_check = 0.0


class _CheckInspect:
    """The ``inspect`` that oslo.policy's rule evaluation sees.

    oslo.policy computes the argument spec of each check's __call__ on
    every evaluation (to know whether it takes the rule's name): ten per
    small GET, a sixth of its time. The spec of a function does not
    change; a bound method's is its function's (``self`` included).
    """

    @staticmethod
    @functools.lru_cache(maxsize=256)
    def _spec_of(func):
        return inspect.getfullargspec(func)

    def getfullargspec(self, func):
        return self._spec_of(getattr(func, '__func__', func))

    def __getattr__(self, name: str):
        return getattr(inspect, name)


class _CheckAst:
    """The ``ast`` that oslo.policy's generic checks see.

    A generic check (``project_id:%(project_id)s``) parses its left side
    with ast.literal_eval on every evaluation to learn whether it is a
    literal: three parses per small GET, most of them raising ValueError.
    The left side of a rule does not change, so the answer is kept.
    """

    _MALFORMED = object()

    @staticmethod
    @functools.lru_cache(maxsize=1024)
    def _literal(text: str):
        try:
            return ast.literal_eval(text)
        except ValueError:
            return _CheckAst._MALFORMED

    def literal_eval(self, node_or_string):
        if not isinstance(node_or_string, str):
            return ast.literal_eval(node_or_string)
        value = self._literal(node_or_string)
        if value is self._MALFORMED:
            raise ValueError('malformed node or string: %r' % node_or_string)
        return value

    def __getattr__(self, name: str):
        return getattr(ast, name)


def init(conf: cfg.ConfigOpts = CONF) -> policy.Enforcer:
    """Create the enforcer once; policy.yaml overrides the defaults."""
    global _ENFORCER
    _checks.inspect = _CheckInspect()
    _checks.ast = _CheckAst()
    if _ENFORCER is None:
        _ENFORCER = Enforcer(conf)
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
