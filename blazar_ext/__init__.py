"""blazar_ext: reservations of scarce hardware, the OpenStack way."""

from oslo_service import backend as _oslo_service_backend

# Threads, not eventlet: select oslo.service's threading backend before any
# module imports oslo.messaging (which would otherwise pick eventlet).
try:
    _oslo_service_backend.init_backend(
        _oslo_service_backend.BackendType.THREADING)
except _oslo_service_backend.exceptions.BackendAlreadySelected:
    pass
