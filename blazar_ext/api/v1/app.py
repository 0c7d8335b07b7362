"""The reservation API (Blazar v1 compatible) as a Pecan app."""

import pecan

from blazar_ext.api import hooks
from blazar_ext.api.middleware import faults
from blazar_ext.api.middleware import metrics
from blazar_ext.api.v1 import errors
from blazar_ext.api.v1 import hooks as v1_hooks
from blazar_ext.api.v1 import root


def build() -> object:
    app = pecan.make_app(root.RootController(),
                         hooks=[v1_hooks.RequestHook(), hooks.ContextHook(),
                                v1_hooks.ResourceIdHook(),
                                metrics.RouteHook(),
                                errors.ErrorHook()],
                         request_cls=v1_hooks.JsonRequest,
                         force_canonical=False,
                         guess_content_type_from_ext=False)
    return faults.JsonErrors(app, errors.render)
