"""blazar_ext: reservations of scarce hardware, the OpenStack way."""

import warnings

# futurist imports eventlet when it is installed, and eventlet warns that
# it is deprecated on import, at every start. Nothing here uses eventlet
# (threads, see below), so the warning says nothing to an operator.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')

from oslo_service import backend as _oslo_service_backend  # noqa: E402

# Threads, not eventlet: select oslo.service's threading backend before any
# module imports oslo.messaging (which would otherwise pick eventlet).
try:
    _oslo_service_backend.init_backend(
        _oslo_service_backend.BackendType.THREADING)
except _oslo_service_backend.exceptions.BackendAlreadySelected:
    pass
