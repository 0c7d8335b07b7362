"""Domain exceptions.

Each exception carries the HTTP status it maps to at the API edge and a stable
``code`` that clients may branch on. They are raised by the manager and the
database layer; oslo.messaging re-raises them in the API process because this
module is listed in ``allowed_remote_exmods``.
"""


# Past these lengths an echoed value, or a whole message, is cut: an error
# must not repeat a multi-megabyte name back to the client or the log.
ECHO_LIMIT = 255
MESSAGE_LIMIT = 2048


def cut(value, limit: int = ECHO_LIMIT):
    """``value`` itself, or its start and its length when it is longer."""
    if isinstance(value, str) and len(value) > limit:
        return '%s... (%d characters)' % (value[:64], len(value))
    return value


class BlazarExtException(Exception):
    """Base class; ``msg_fmt`` is formatted with the keyword arguments."""

    msg_fmt = 'An unknown error occurred.'
    status = 500
    code = 'blazar_ext.undefined'

    def __init__(self, message: str | None = None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % {
                    k: v if k == 'reason' else cut(v)
                    for k, v in kwargs.items()}
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.message = cut(message, MESSAGE_LIMIT)
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class Invalid(BlazarExtException):
    msg_fmt = 'Invalid input: %(reason)s'
    status = 400
    code = 'blazar_ext.invalid'


class NotFound(BlazarExtException):
    msg_fmt = 'Not found: %(what)s'
    status = 404
    code = 'blazar_ext.not_found'


class Forbidden(BlazarExtException):
    msg_fmt = 'Forbidden: %(reason)s'
    status = 403
    code = 'blazar_ext.forbidden'


class PolicyNotAuthorized(Forbidden):
    msg_fmt = 'Policy does not allow %(action)s to be performed.'
    code = 'blazar_ext.policy_not_authorized'


class Conflict(BlazarExtException):
    msg_fmt = 'Conflict: %(reason)s'
    status = 409
    code = 'blazar_ext.conflict'


class ServiceUnavailable(BlazarExtException):
    msg_fmt = 'Service unavailable: %(reason)s'
    status = 503
    code = 'blazar_ext.service_unavailable'


class ConfigurationError(BlazarExtException):
    """A setting names something that cannot be loaded; the service must
    not start with it."""
    msg_fmt = 'Configuration error: %(reason)s'
    code = 'blazar_ext.configuration_error'


class HostNotFound(NotFound):
    msg_fmt = 'Host %(host)s could not be found.'
    code = 'blazar_ext.host_not_found'


class HostExists(Conflict):
    msg_fmt = 'Host %(host)s is already registered.'
    code = 'blazar_ext.host_exists'


class HostInUse(Conflict):
    msg_fmt = ('Host %(host)s has current or future allocations and cannot '
               'be deleted.')
    code = 'blazar_ext.host_in_use'


class HostProviderInUse(Conflict):
    msg_fmt = ('The host cannot be deleted while its resource provider is '
               'in use: %(reason)s')
    code = 'blazar_ext.host_provider_in_use'


class InventorySourceError(Invalid):
    msg_fmt = 'Host inventory could not be read: %(reason)s'
    code = 'blazar_ext.inventory_source_error'


class HealthSourceError(BlazarExtException):
    msg_fmt = 'Host health could not be checked: %(reason)s'
    status = 503
    code = 'blazar_ext.health_source_error'


class ResourceTypeNotFound(NotFound):
    msg_fmt = 'Resource type %(resource_type)s not found.'
    code = 'blazar_ext.resource_type_not_found'


class ResourcePropertyNotFound(NotFound):
    msg_fmt = ('Property %(property)s not found for resource type '
               '%(resource_type)s.')
    code = 'blazar_ext.resource_property_not_found'


class LeaseNotFound(NotFound):
    msg_fmt = 'Lease %(lease)s could not be found.'
    code = 'blazar_ext.lease_not_found'


class NotEnoughResources(Conflict):
    msg_fmt = 'Not enough resources available: %(reason)s'
    code = 'blazar_ext.not_enough_resources'


class NotEnoughFloatingIPs(NotEnoughResources):
    """Upstream Blazar refuses a floating IP reservation it cannot fill as
    bad input (400), where it answers 500 for hosts."""
    msg_fmt = 'Not enough floating IPs available: %(reason)s'
    status = 400
    code = 'blazar_ext.not_enough_floatingips'


class InvalidLeaseState(Conflict):
    msg_fmt = 'Lease %(lease)s is %(status)s: %(reason)s'
    code = 'blazar_ext.invalid_lease_state'


class FloatingIPNotFound(NotFound):
    msg_fmt = 'Floating IP %(floatingip)s could not be found.'
    code = 'blazar_ext.floatingip_not_found'


class FloatingIPExists(Conflict):
    msg_fmt = ('Floating IP %(address)s is already registered on network '
               '%(network)s.')
    code = 'blazar_ext.floatingip_exists'


class FloatingIPInUse(Conflict):
    msg_fmt = ('Floating IP %(floatingip)s has current or future allocations '
               'and cannot be deleted.')
    code = 'blazar_ext.floatingip_in_use'


class EnforcementRejected(Forbidden):
    """A usage enforcement filter denied a lease create or update.

    ``message`` is the filter's own text, shown to the user as it is.
    """

    msg_fmt = 'The request was denied by usage enforcement: %(reason)s'
    code = 'blazar_ext.enforcement_rejected'

    def __init__(self, message: str | None = None, *,
                 filter_name: str | None = None, **kwargs):
        super().__init__(message, **kwargs)
        self.filter_name = filter_name


# Budgets (issue 31).

class BudgetNotFound(NotFound):
    msg_fmt = 'Budget %(budget)s could not be found.'
    code = 'blazar_ext.budget_not_found'


class BudgetExists(Conflict):
    msg_fmt = ('A budget for project %(project_id)s%(user)s already '
               'exists: %(budget)s.')
    code = 'blazar_ext.budget_exists'


class RatesManagedByFile(Conflict):
    msg_fmt = ('Rates come from the file %(path)s ([budgets] rates_file); '
               'edit it and send the manager SIGHUP instead.')
    code = 'blazar_ext.rates_managed_by_file'


# Placement-compatible inventory. The Placement error code each one answers
# with is mapped in api/placement/errors.py.

class ResourceProviderNotFound(NotFound):
    msg_fmt = 'No resource provider with uuid %(uuid)s found'


class ResourceProviderExists(Conflict):
    msg_fmt = 'Conflicting resource provider %(field)s: %(value)s ' \
              'already exists.'


class ResourceProviderInUse(Conflict):
    msg_fmt = 'Unable to delete resource provider %(uuid)s: %(reason)s'


class CannotDeleteParentProvider(Conflict):
    msg_fmt = 'Unable to delete parent resource provider %(uuid)s: ' \
              'It has child resource providers.'


class ConcurrentUpdateDetected(Conflict):
    msg_fmt = '%(what)s: another thread concurrently updated the data. ' \
              'Please retry your update'


class InvalidProviderRequest(Invalid):
    msg_fmt = '%(reason)s'


class TraitNotFound(NotFound):
    msg_fmt = 'No such trait(s): %(names)s.'


class TraitCannotDeleteStandard(Invalid):
    msg_fmt = 'Cannot delete standard trait %(name)s.'


class TraitInUse(Conflict):
    msg_fmt = 'The trait %(name)s is in use by a resource provider.'


class ResourceClassNotFound(NotFound):
    msg_fmt = 'No such resource class %(name)s.'


class ResourceClassExists(Conflict):
    msg_fmt = 'Resource class %(name)s already exists.'


class ResourceClassCannotDeleteStandard(Invalid):
    msg_fmt = 'Cannot delete standard resource class %(name)s.'


class ResourceClassInUse(Conflict):
    msg_fmt = ('Cannot delete resource class %(name)s. Class is in use in '
               'inventory.')


class InventoryNotFound(NotFound):
    msg_fmt = 'No inventory of class %(resource_class)s for ' \
              '%(uuid)s'


class InventoryExists(Conflict):
    msg_fmt = 'Inventory of class %(resource_class)s already exists ' \
              'for resource provider %(uuid)s'


class InventoryInUse(Conflict):
    msg_fmt = "Inventory for '%(resource_classes)s' on resource provider " \
              "'%(uuid)s' in use."


class InsufficientCapacity(Conflict):
    msg_fmt = 'Unable to allocate inventory: %(reason)s'


class AllocationsNotFound(NotFound):
    msg_fmt = 'No allocations for consumer \'%(consumer)s\''


class SubscriptionNotFound(NotFound):
    msg_fmt = 'Subscription %(subscription)s not found.'
    code = 'blazar_ext.subscription_not_found'


# Lease series and maintenance windows (issue 30).

class LeaseSeriesNotFound(NotFound):
    msg_fmt = 'Lease series %(series)s could not be found.'
    code = 'blazar_ext.lease_series_not_found'


class SeriesNotBookable(Conflict):
    msg_fmt = 'Not enough resources available for the series: %(reason)s'
    code = 'blazar_ext.series_not_bookable'


class MaintenanceNotFound(NotFound):
    msg_fmt = 'Maintenance window %(maintenance)s could not be found.'
    code = 'blazar_ext.maintenance_not_found'
