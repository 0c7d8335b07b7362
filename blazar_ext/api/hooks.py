"""Pecan hooks shared by the API families."""

import pecan

from blazar_ext.api.middleware import auth


class ContextHook(pecan.hooks.PecanHook):
    """Exposes the RequestContext as ``pecan.request.context``."""

    def before(self, state):
        state.request.context = state.request.environ[auth.CONTEXT_KEY]
