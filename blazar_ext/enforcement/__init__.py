"""Usage enforcement: an ordered chain of filters run by the manager.

The manager calls :class:`UsageEnforcement` with the plain lease dicts it
has; the chain shapes them into the spec's payloads, skips exempted
projects, and runs each enabled filter in the configured order. The first
filter that denies stops the chain with an EnforcementRejected (403).

Filters are found by name among the entry points of the
``blazar_ext.enforcement.filters`` namespace and the Python paths listed in
``[enforcement] available_filters``. :func:`get_chain` resolves every name
when the manager starts, so a misspelt filter stops the manager there.
"""

import importlib
import inspect

from oslo_config import cfg
from oslo_log import log as logging
from stevedore import extension

from blazar_ext.enforcement import allocations
from blazar_ext.enforcement import base
from blazar_ext.enforcement import keystone
from blazar_ext.enforcement import payload
from blazar_ext import exceptions

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

NAMESPACE = 'blazar_ext.enforcement.filters'


class FilterLoadError(Exception):
    """[enforcement] names a filter that cannot be found or built."""


def _classes_from_path(path: str) -> list:
    """Filter classes a Python path provides (module, callable or class)."""
    module_name, sep, attr = path.partition(':')
    if not sep:
        try:
            return _classes_of(importlib.import_module(path))
        except ImportError:
            module_name, _, attr = path.rpartition('.')
    try:
        module = importlib.import_module(module_name)
        return _classes_of(getattr(module, attr))
    except (ImportError, AttributeError, ValueError) as exc:
        raise FilterLoadError(
            'Cannot load enforcement filters from %r listed in '
            '[enforcement] available_filters: %s' % (path, exc)) from exc


def _classes_of(obj) -> list:
    if inspect.ismodule(obj):
        return [value for value in vars(obj).values()
                if inspect.isclass(value)
                and issubclass(value, base.BaseFilter)
                and value is not base.BaseFilter]
    if inspect.isclass(obj):
        return [obj]
    if callable(obj):
        return list(obj())
    raise ValueError('%r is not a module, class or callable' % obj)


def available_filters(conf: cfg.ConfigOpts = CONF) -> dict:
    """Every filter that can be enabled: {name: class}.

    Entry points come first so an operator's package may override a name
    given by a module path only if it uses its own name.
    """
    found = {}
    for ext in extension.ExtensionManager(
            NAMESPACE, invoke_on_load=False,
            on_load_failure_callback=_entry_point_failed):
        found.setdefault(ext.name, ext.plugin)
    for path in conf.enforcement.available_filters:
        for cls in _classes_from_path(path):
            for name in (cls.__name__,) + tuple(getattr(cls, 'aliases', ())):
                found.setdefault(name, cls)
    return found


def _entry_point_failed(manager, entrypoint, exc) -> None:
    # A broken plugin is only fatal if it is enabled; then the name is
    # reported missing with this log line explaining why.
    LOG.error('Cannot load enforcement filter entry point %s: %s',
              entrypoint, exc)


def load_filters(conf: cfg.ConfigOpts = CONF) -> list:
    """Instances of the enabled filters, in [enforcement] enabled_filters
    order. Raises FilterLoadError naming the unknown or broken filter."""
    names = [n.strip() for n in conf.enforcement.enabled_filters
             if n.strip()]
    if not names:
        return []
    available = available_filters(conf)
    filters = []
    for name in names:
        cls = available.get(name)
        if cls is None:
            raise FilterLoadError(
                'Unknown usage enforcement filter %r in [enforcement] '
                'enabled_filters. Available filters: %s (entry points of '
                'the %s namespace and [enforcement] available_filters).'
                % (name, ', '.join(sorted(available)) or 'none', NAMESPACE))
        if not (inspect.isclass(cls) and issubclass(cls, base.BaseFilter)):
            raise FilterLoadError(
                'Usage enforcement filter %r (%r) is not a subclass of '
                'blazar_ext.enforcement.base.BaseFilter.' % (name, cls))
        try:
            filters.append(cls(conf))
        except Exception as exc:
            raise FilterLoadError(
                'Usage enforcement filter %r could not be set up: %s'
                % (name, exc)) from exc
    return filters


PAYLOAD_METHODS = ('check_create', 'check_update', 'on_end')


def _implements(flt: base.BaseFilter, method: str) -> bool:
    return getattr(type(flt), method, None) is not getattr(
        base.BaseFilter, method)


class UsageEnforcement:
    """The chain the manager runs at lease create, update and end."""

    def __init__(self, filters: list, conf: cfg.ConfigOpts = CONF,
                 resolver: keystone.ProjectResolver | None = None):
        self.filters = list(filters)
        self.conf = conf
        if resolver is None:
            session = None
            if any('@' in p for p in conf.enforcement.exempted_projects):
                session = keystone.load_session(conf)
            resolver = keystone.ProjectResolver(
                conf.enforcement.exempted_projects, session)
        self._exempt = resolver

    @property
    def filter_names(self) -> list:
        return [f.name for f in self.filters]

    def _exempted(self, context_doc: dict) -> bool:
        project_id = context_doc.get('project_id')
        if project_id and project_id in self._exempt.project_ids():
            LOG.debug('Project %s is exempted from usage enforcement.',
                      project_id)
            return True
        return False

    def _active(self, *methods: str) -> list:
        """Active filters implementing any of ``methods`` (default: the
        payload methods): a filter that only writes in the transaction
        (budgets) needs no payload, whose candidates cost a query."""
        methods = methods or PAYLOAD_METHODS
        return [f for f in self.filters if f.active and any(
            _implements(f, method) for method in methods)]

    @property
    def enabled(self) -> bool:
        """Whether any filter will hear of leases (payloads are worth
        building)."""
        return bool(self._active())

    def check_create(self, context, lease: dict) -> None:
        """Run every filter on a new lease; raise EnforcementRejected."""
        filters = self._active()
        if not filters:
            return
        ctx = payload.context_payload(context, self.conf, lease)
        if self._exempted(ctx):
            return
        doc = payload.lease_payload(allocations.with_allocations(
            context, lease))
        for flt in filters:
            self._run(flt, 'check_create', ctx, doc)

    def check_update(self, context, current_lease: dict,
                     lease: dict) -> None:
        """Run every filter on a lease change; raise EnforcementRejected.

        The current lease is sent with the resources it holds; the new one
        with the allocations the manager gives, if any.
        """
        filters = self._active()
        if not filters:
            return
        ctx = payload.context_payload(context, self.conf, current_lease)
        if self._exempted(ctx):
            return
        current_doc = payload.lease_payload(allocations.with_allocations(
            context, current_lease))
        doc = payload.lease_payload(lease)
        for flt in filters:
            self._run(flt, 'check_update', ctx, current_doc, doc)

    def on_end(self, context, lease: dict) -> None:
        """Tell every filter a lease ends. Never raises: failures are
        logged and the next filter is still told."""
        filters = self._active()
        if not filters:
            return
        try:
            ctx = payload.context_payload(context, self.conf, lease,
                                          prefer_lease_owner=True)
            if self._exempted(ctx):
                return
            doc = payload.lease_payload(allocations.with_allocations(
                context, lease))
        except Exception:
            LOG.exception('Cannot build the usage enforcement payload for '
                          'the end of lease %s', lease.get('id'))
            return
        for flt in filters:
            try:
                flt.on_end(ctx, doc)
            except Exception as exc:
                LOG.warning('Usage enforcement filter %s failed on the end '
                            'of lease %s (the lease ends anyway): %s',
                            flt.name, lease.get('id'), exc)

    def in_transaction(self, action: str, session, context,
                       *leases: dict) -> None:
        """Run every filter's write_<action> (create, update, delete) in
        the manager's transaction; a refusal undoes the change (403)."""
        filters = self._active('write_' + action)
        if not filters:
            return
        ctx = payload.context_payload(context, self.conf, leases[-1],
                                      prefer_lease_owner=True)
        if self._exempted(ctx):
            return
        for flt in filters:
            try:
                getattr(flt, 'write_' + action)(session, ctx, *leases)
            except exceptions.EnforcementRejected as exc:
                if exc.filter_name is None:
                    exc.filter_name = flt.name
                LOG.info('Usage enforcement filter %s denied %s: %s',
                         flt.name, action, exc)
                raise
            except exceptions.Forbidden as exc:
                raise exceptions.EnforcementRejected(
                    str(exc), filter_name=flt.name) from exc

    @staticmethod
    def _run(flt: base.BaseFilter, method: str, *args) -> None:
        try:
            getattr(flt, method)(*args)
        except exceptions.EnforcementRejected as exc:
            if exc.filter_name is None:
                exc.filter_name = flt.name
            LOG.info('Usage enforcement filter %s denied %s: %s',
                     flt.name, method, exc)
            raise
        except exceptions.Forbidden as exc:
            # A custom filter raising the generic 403 still denies.
            raise exceptions.EnforcementRejected(
                str(exc), filter_name=flt.name) from exc
        except Exception as exc:
            # A bug in a filter must not let a lease through unchecked.
            LOG.exception('Usage enforcement filter %s failed in %s',
                          flt.name, method)
            raise exceptions.EnforcementRejected(
                'Usage enforcement could not check the request; it is '
                'denied. Contact the operator.',
                filter_name=flt.name) from exc


def get_chain(conf: cfg.ConfigOpts = CONF) -> UsageEnforcement:
    """Build the configured chain; raise FilterLoadError on a bad name."""
    filters = load_filters(conf)
    chain = UsageEnforcement(filters, conf)
    LOG.info('Usage enforcement filters, in order: %s',
             ', '.join(chain.filter_names) or 'none')
    return chain
