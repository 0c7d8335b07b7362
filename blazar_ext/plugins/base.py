"""The resource-type contract: what the manager asks of each plugin.

One subclass of ``ResourcePlugin`` per reservable type (``physical:host``,
``virtual:floatingip``, ...), registered as an entry point in the
``blazar_ext.resource.plugins`` namespace and enabled by ``[manager]
plugins`` (see blazar_ext.plugins.loader and
doc/source/contributor/resource-type.rst).

How the manager drives a plugin:

- ``normalize`` runs first, outside any transaction: it validates the
  request and parses its query once; the parsed form rides on the returned
  ``Spec`` (``spec.parsed``) to every later call.
- The manager opens the writer transaction and, inside it, calls the db API
  for the lease rows and the plugin for its part: ``add_detail`` /
  ``update_detail`` (the type's reservation row) and ``allocate`` /
  ``reallocate`` (hold resources for the window). Raising rolls everything
  back; nothing is left behind. The plugin never opens a transaction of its
  own on these paths and never calls the manager.
- ``candidates`` answers what ``allocate`` would pick, without holding
  anything, for the usage enforcement payloads.
- ``on_start``, ``before_end`` and ``on_end`` run from the lease events,
  outside the allocation transaction; they may call foreign services.
- ``heal`` re-places what a reservation lost when a resource went out of
  service, or reports it missing.

A type also owns its resources' whole lifecycle, so nothing outside
``plugins/`` names it:

- registration: ``resource_operations`` names what the manager's generic
  RPC call (``resource_call(resource_type, operation, payload)``) may ask
  of it, served by ``create_resource``, ``update_resource`` and
  ``delete_resource`` (``legacy_rpc`` names the per-type methods of RPC
  API 1.0-1.2, for an API pinned below 1.3 during a rolling upgrade);
- service state: ``set_reservable`` takes a resource out of service or
  brings it back (the manager heals after it);
- healing: ``lost_sources`` says where its reservations hold resources
  that can go out of service, ``heal`` / ``heal_many`` re-place them;
- health: ``health_targets`` hands the health monitor the resources due
  for a check (none by default);
- API and catalog: ``api_routes``, ``policy_modules``,
  ``catalog_resource_type``, ``properties_of`` and ``calendar_tab``.
"""

import abc
from collections.abc import Callable
import datetime
from typing import Any

from blazar_ext import exceptions

#: The operations of the manager's generic resource call, each served by
#: one method of the contract.
OPERATIONS = {'create': 'create_resource', 'update': 'update_resource',
              'delete': 'delete_resource'}

#: Keys of an update payload that change the service state rather than
#: the resource's description.
SERVICE_FIELDS = ('reservable', 'reservable_reason')

#: Who took a resource out of service when no health source did.
OPERATOR = 'operator'


class Spec(dict):
    """A normalized reservation request: plain JSON-able fields (stored,
    sent to enforcement, shown) plus ``parsed``, the parsed form of its
    query, which never leaves the process."""

    def __init__(self, *args, parsed: Any = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.parsed = parsed

    def copy_with(self, **fields) -> 'Spec':
        """A copy with ``fields`` set, keeping the parsed form."""
        return Spec(self, parsed=self.parsed, **fields)


def keep_then_add(current: list, candidates: Callable, spec: dict,
                  require: Callable) -> tuple:
    """(kept, added) for a changed reservation that holds ``current``:
    those of ``current`` that still fit, then, when fewer than ``min``
    do, others up to ``max``.

    ``candidates(limit, among=None, exclude=None)`` gives the ids of up to
    ``limit`` free matching resources, among or apart from the ids given;
    ``require(found, spec)`` raises when ``found`` is below ``min``.
    """
    kept = candidates(spec['max'], among=current) if current else []
    added = []
    if len(kept) < spec['min']:
        added = candidates(spec['max'] - len(kept), exclude=current)
        require(len(kept) + len(added), spec)
    return kept, added


class ResourcePlugin(metaclass=abc.ABCMeta):
    """One reservable resource type."""

    #: The type as clients name it, e.g. ``'physical:host'``.
    resource_type: str = ''

    #: The detail fields of a reservation of this type, shown by the API
    #: next to the common reservation columns and given back to
    #: ``normalize`` as ``current`` on update.
    detail_columns: tuple = ()

    #: API routes this type adds under /v1, mounted only while it is
    #: enabled: {path segment: 'module:ControllerClass'}. Strings, so that
    #: loading a plugin in the manager does not import the API.
    api_routes: dict = {}

    #: Modules whose ``list_rules()`` give the policies of those routes
    #: ('package.module' strings, for the same reason).
    policy_modules: tuple = ()

    #: The resource type whose capabilities a request of this type names
    #: in ``resource_properties``; /v1/<this type>/properties lists them.
    #: None: the type's own (db/api/capability.register_value_model).
    properties_of: str | None = None

    #: The metadefs catalog resource type of this type (OS::Blazar::Host):
    #: the namespaces associated with it describe its properties (title,
    #: type, operators) in the properties API. None: the type's own name.
    catalog_resource_type: str | None = None

    #: The reservation calendar's tab for this type (api/calendar serves
    #: the enabled types' tabs as /calendar/tabs.json): {'key': the tab's
    #: id, 'label': its title, 'column': the rows' heading (one resource),
    #: 'noun': the resources in a sentence, 'path': the calendar route,
    #: answering as /v1/os-hosts/calendar}. None: no tab.
    calendar_tab: dict | None = None

    #: The operations of OPERATIONS this type's resources answer to; any
    #: other is a 400 naming these.
    resource_operations: tuple = ()

    #: For an API pinned below RPC 1.3 (rolling upgrade): {operation:
    #: (manager method, its version, keyword naming the resource id or
    #: None)}, the per-type calls an older manager knows.
    legacy_rpc: dict = {}

    # Requests

    @abc.abstractmethod
    def normalize(self, request: dict, current: dict | None = None,
                  private_visible: bool = False) -> Spec:
        """Validate a reservation request; Invalid names what is wrong.

        ``current`` (on update) is the reservation as stored: it supplies
        the fields the request leaves out. Parse the request's query here,
        once, and keep it in ``Spec.parsed``. ``private_visible`` is the
        API's policy answer: whether the caller may name private
        capabilities (keep it in the parsed form if the query uses them).
        """

    def validate_update(self, current: dict, new: Spec,
                        lease_status: str) -> None:
        """Refuse a change the type does not allow in ``lease_status``
        (Invalid or InvalidLeaseState). Default: any change."""

    # Allocation (inside the manager's writer transaction)

    @abc.abstractmethod
    def allocate(self, context, session, reservation_id: str, spec: Spec,
                 start: datetime.datetime, end: datetime.datetime) -> list:
        """Hold resources for the window; their ids. NotEnoughResources
        (a 409 naming what was short) rolls the lease back."""

    @abc.abstractmethod
    def reallocate(self, context, session, reservation_id: str, spec: Spec,
                   start: datetime.datetime,
                   end: datetime.datetime) -> list:
        """Hold what the changed spec or window needs, keeping what still
        fits and releasing the rest; NotEnoughResources as allocate."""

    @abc.abstractmethod
    def candidates(self, context, session, spec: Spec,
                   start: datetime.datetime, end: datetime.datetime,
                   reservation_id: str | None = None) -> list:
        """The ids allocate (or reallocate, given ``reservation_id``)
        would hold now, holding nothing: for the enforcement payloads."""

    @abc.abstractmethod
    def held(self, session, reservation_ids: list) -> dict:
        """{reservation_id: [resource id, ...]} currently held."""

    @abc.abstractmethod
    def release(self, session, reservation_ids: list) -> None:
        """Drop every allocation of these reservations (lease over)."""

    @abc.abstractmethod
    def load_resources(self, context, resource_ids: list) -> list:
        """The resources (dicts with ``id``) for enforcement payloads;
        ids no longer known are left out."""

    # The type's reservation detail (its own table)

    @abc.abstractmethod
    def add_detail(self, session, reservation_id: str,
                   spec: Spec) -> str | None:
        """Store the detail row; returns the reservation's resource_id."""

    @abc.abstractmethod
    def update_detail(self, session, reservation_id: str,
                      spec: Spec) -> None:
        """Store the changed detail."""

    @abc.abstractmethod
    def details(self, session, reservation_ids: list) -> dict:
        """{reservation_id: {detail column: value}} in one or two
        queries."""

    @abc.abstractmethod
    def delete_details(self, session, reservation_ids: list) -> None:
        """Delete the detail rows (and any allocations) of these
        reservations; the lease rows go after."""

    # Views

    def view(self, reservation: dict) -> dict:
        """The type's fields of a reservation, as the API shows them."""
        return {name: reservation.get(name) for name in self.detail_columns}

    def spec_of(self, reservation: dict) -> dict:
        """The stored reservation as a request (for ``current`` and the
        enforcement payloads)."""
        spec = {name: reservation.get(name) for name in self.detail_columns}
        spec['resource_type'] = self.resource_type
        spec['id'] = reservation['id']
        return spec

    # Resources of this type (the manager's generic resource call)

    def operation(self, operation: str):
        """The bound method serving ``operation``; Invalid naming the
        operations this type has otherwise."""
        if operation not in self.resource_operations:
            raise exceptions.Invalid(
                reason='%s resources have no %r operation; they have: %s'
                       % (self.resource_type, operation,
                          ', '.join(self.resource_operations) or 'none'))
        return getattr(self, OPERATIONS[operation])

    def create_resource(self, context, values: dict) -> dict:
        """Register a resource (the API validated ``values``)."""
        raise NotImplementedError

    def update_resource(self, context, resource_id: str,
                        values: dict) -> dict:
        """Change a resource's description (never its service state:
        the manager hands SERVICE_FIELDS to ``set_reservable``)."""
        raise NotImplementedError

    def delete_resource(self, context, resource_id: str) -> None:
        """Unregister a resource; refuse while reservations hold it."""
        raise NotImplementedError

    def get_resource(self, context, resource_id: str) -> dict:
        """One resource as the API shows it after an update."""
        raise NotImplementedError

    # Service state, healing and health

    def set_reservable(self, context, resource_id: str, reservable: bool,
                       reason: str | None = None, by: str = OPERATOR,
                       only_if_by: str | None = None) -> bool:
        """Take a resource out of service or bring it back; True if its
        state changed (the manager then heals). ``only_if_by``: only if
        that source took it out. Default: the type has no service
        state."""
        raise exceptions.Invalid(
            reason='%s resources cannot be taken out of service'
                   % self.resource_type)

    def lost_sources(self) -> list:
        """Where this type's reservations hold resources that can go out
        of service: blazar_ext.db.api.healing.LostSource entries (the
        lost resource's type, its allocation table, resource table and
        column). Default: none, nothing of this type is ever healed."""
        return []

    # Maintenance windows (manager/maintenance.py): a type that can go
    # out of service (set_reservable, lost_sources) and names its
    # maintenance_windows column can have windows.

    #: The maintenance_windows column naming a resource of this type
    #: (None: the type has no maintenance windows).
    maintenance_column: str | None = None

    def resource_id_of(self, context, ref: str) -> str:
        """The id of the resource ``ref`` names (its type's NotFound)."""
        return str(self.get_resource(context, ref)['id'])

    def hold_for_maintenance(self, session, reservation_id: str,
                             resource_id: str, start: datetime.datetime,
                             end: datetime.datetime) -> str | None:
        """Write the detail of a maintenance window's hold reservation
        and its allocation on ``resource_id`` over [start, end], whatever
        else the resource holds; the detail's id."""
        raise exceptions.Invalid(
            reason='%s resources have no maintenance windows'
                   % self.resource_type)

    def health_targets(self, context, checker: str,
                       now: datetime.datetime,
                       interval: datetime.timedelta, limit: int) -> list:
        """Claim (for ``checker``) up to ``limit`` resources not checked
        for ``interval``, for the health source: [{'id', 'name',
        'service_name', 'reservable', 'by'}]. Default: none (the type's
        resources are not health-checked)."""
        return []

    # Adoption of an upstream Blazar database (import-blazar)

    def adopt_upstream_detail(self, row: dict) -> dict | None:
        """This type's detail columns for a reservation upstream Blazar 18
        stored as ``row`` (the row of its detail table, e.g.
        ``instance_reservations``, as blazar_ext.db.api.blazar_import reads
        it), where blazar_ext keeps them differently: {column: value},
        merged over ``row`` when it is written.

        None (the default): imported as upstream stored it. Raise
        exceptions.Invalid when it cannot be kept faithfully: the
        reservation and its lease are skipped, and the dry run reports
        the message. Runs outside any transaction; no I/O.
        """
        return None

    # Lifecycle (outside the allocation transaction)

    def on_start(self, context, reservation: dict) -> None:
        """The lease starts: make the held resources usable."""

    def before_end(self, context, reservation: dict) -> None:
        """The lease nears its end ([manager] minutes_before_end_lease)."""

    def on_end(self, context, reservation: dict) -> None:
        """The lease ends (or an active lease is deleted): undo on_start.
        Allocations are released by the manager afterwards."""

    # Healing

    def heal(self, session, reservation: dict, lost: list,
             start: datetime.datetime, end: datetime.datetime) -> dict:
        """Resources ``lost`` (ids this reservation holds, now out of
        service) need a replacement for ``start``..``end`` (the rest of the
        lease's window: from now if it is active).

        ``reservation`` carries its detail (``details``). Runs inside the
        writer transaction of the healing (blazar_ext.manager.healing),
        like allocate: release each lost id that can be replaced and hold a
        free one matching the same request for the window. Returns {lost
        id: replacement id, or None where nothing fits (that allocation
        stays; the reservation is flagged ``missing_resources`` and its
        lease ``degraded``)}. A shortfall is a result, not an error: do not
        raise NotEnoughResources.

        Default: replace nothing, so every lost resource is flagged.
        """
        return {old: None for old in lost}

    def heal_many(self, session, items: list) -> list:
        """``heal`` for each (reservation, lost, start, end) of ``items``,
        in one healing transaction; one result per item, in order.

        A host failure hands over every reservation it held at once: a
        type that can pick many replacements in one query overrides this
        (physical:host does). Default: ``heal`` each.
        """
        return [self.heal(session, *item) for item in items]

    def healed(self, context, reservation: dict, lost: list) -> None:
        """After the healing committed, for a reservation that left the
        resources ``lost``: make the move visible where the type shows
        itself once started (virtual:instance moves its reservation
        providers). Default: nothing."""


class DetailTableMixin:
    """``held``, ``release`` and the detail methods of a type whose rows
    live in one detail table and one allocation table: set
    ``detail_table`` to its blazar_ext.db.api.reservation_detail
    DetailTable. Put it before ResourcePlugin among the bases."""

    #: The type's DetailTable (db/api/reservation_detail).
    detail_table: Any = None

    def held(self, session, reservation_ids: list) -> dict:
        return self.detail_table.held(session, reservation_ids)

    def release(self, session, reservation_ids: list) -> None:
        self.detail_table.release(session, reservation_ids)

    def add_detail(self, session, reservation_id: str,
                   spec: Spec) -> str | None:
        return self.detail_table.add(session, reservation_id, spec)

    def update_detail(self, session, reservation_id: str,
                      spec: Spec) -> None:
        self.detail_table.update(session, reservation_id, spec)

    def details(self, session, reservation_ids: list) -> dict:
        return self.detail_table.details(session, reservation_ids)

    def delete_details(self, session, reservation_ids: list) -> None:
        self.detail_table.delete(session, reservation_ids)
