"""Importing an upstream Blazar database, all or nothing.

read_source() reads every table blazar_ext takes over from a Blazar
database at Blazar 18's alembic head; plan() decides, row by row, what
will be written and what is skipped and why (pure: no I/O; a planned row
may be the source's own dict, so neither is changed afterwards); write()
writes a plan in one transaction on blazar_ext's database, or nothing.
Ids are kept, host ids included (both are strings).
"""

import collections
import dataclasses
import functools
import re

import os_resource_classes
import os_traits
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from blazar_ext.db.api import bulk
from blazar_ext.db.api import capability as capability_api
from blazar_ext.db.api import host as host_api
from blazar_ext.db.api import host_properties
from blazar_ext.db.api import host_service
from blazar_ext.db.api import instance_capacity
from blazar_ext.db.api.placement import inventory as inventory_api
from blazar_ext.db.api.placement import resource_class as rc_api
from blazar_ext.db.api.placement import trait as trait_api
from blazar_ext.db.models import floatingip as fip_models
from blazar_ext.db.models import host as host_models
from blazar_ext.db.models import instance as instance_models
from blazar_ext.db.models import lease as lease_models
from blazar_ext.db.models import placement as placement_models
from blazar_ext.db import session as db_session
from blazar_ext import exceptions
from blazar_ext.query import language

# Blazar 18.0.0's alembic head ("add compute host inventory and traits").
SUPPORTED_REVISION = '553383923ca0'

HOST_TYPE = 'physical:host'
FLOATINGIP_TYPE = 'virtual:floatingip'
INSTANCE_TYPE = 'virtual:instance'
FLAVOR_TYPE = 'flavor:instance'
# Rows fetched from the source per round trip.
_READ_BATCH = 10000
# The upstream table holding each importable type's reservation detail.
DETAIL_TABLES = {HOST_TYPE: 'computehost_reservations',
                 FLOATINGIP_TYPE: 'floatingip_reservations',
                 INSTANCE_TYPE: 'instance_reservations',
                 FLAVOR_TYPE: 'instance_reservations'}
IMPORTABLE_TYPES = tuple(DETAIL_TABLES)
# Types whose detail rows upstream stores in another shape: imported only
# as their plugin translates them (ResourcePlugin.adopt_upstream_detail,
# asked by the command layer, since db/ does not import plugins).
ADOPTED_TYPES = (FLAVOR_TYPE,)


def _table(name: str, *columns) -> sa.TableClause:
    return sa.table(name, *[sa.column(c, t) for c, t in columns])


_ID = ('id', sa.String)
_TIMES = (('created_at', sa.DateTime), ('updated_at', sa.DateTime))

# Upstream's tables, as Blazar 18's migrations leave them (only what is
# read; its models are blazar/db/sqlalchemy/models.py).
SOURCE_TABLES = {
    'computehosts': _table(
        'computehosts', _ID, ('vcpus', sa.Integer), ('cpu_info', sa.Text),
        ('hypervisor_type', sa.Text), ('hypervisor_version', sa.Integer),
        ('hypervisor_hostname', sa.String), ('service_name', sa.String),
        ('memory_mb', sa.Integer), ('local_gb', sa.Integer),
        ('status', sa.String), ('availability_zone', sa.String),
        ('trust_id', sa.String), ('reservable', sa.Boolean), *_TIMES),
    'resource_properties': _table(
        'resource_properties', _ID, ('resource_type', sa.String),
        ('property_name', sa.String), ('private', sa.Boolean), *_TIMES),
    'computehost_extra_capabilities': _table(
        'computehost_extra_capabilities', _ID,
        ('computehost_id', sa.String), ('property_id', sa.String),
        ('capability_value', sa.Text), *_TIMES),
    'computehost_trait': _table(
        'computehost_trait', _ID, ('computehost_id', sa.String),
        ('trait', sa.String)),
    'computehost_resource_inventory': _table(
        'computehost_resource_inventory', _ID,
        ('computehost_id', sa.String), ('resource_class', sa.String),
        ('total', sa.Integer), ('reserved', sa.Integer),
        ('min_unit', sa.Integer), ('max_unit', sa.Integer),
        ('step_size', sa.Integer), ('allocation_ratio', sa.Float)),
    'floatingips': _table(
        'floatingips', _ID, ('floating_network_id', sa.String),
        ('subnet_id', sa.String), ('floating_ip_address', sa.String),
        ('reservable', sa.Boolean), *_TIMES),
    'leases': _table(
        'leases', _ID, ('name', sa.String), ('user_id', sa.String),
        ('project_id', sa.String), ('start_date', sa.DateTime),
        ('end_date', sa.DateTime), ('trust_id', sa.String),
        ('status', sa.String), ('degraded', sa.Boolean), *_TIMES),
    'reservations': _table(
        'reservations', _ID, ('lease_id', sa.String),
        ('resource_id', sa.String), ('resource_type', sa.String),
        ('status', sa.String), ('missing_resources', sa.Boolean),
        ('resources_changed', sa.Boolean), *_TIMES),
    'computehost_reservations': _table(
        'computehost_reservations', _ID, ('reservation_id', sa.String),
        ('aggregate_id', sa.Integer), ('resource_properties', sa.Text),
        ('count_range', sa.String), ('hypervisor_properties', sa.Text),
        ('before_end', sa.String), *_TIMES),
    'instance_reservations': _table(
        'instance_reservations', _ID, ('reservation_id', sa.String),
        ('vcpus', sa.Integer), ('memory_mb', sa.Integer),
        ('disk_gb', sa.Integer), ('amount', sa.Integer),
        ('affinity', sa.Boolean), ('resource_properties', sa.Text),
        ('flavor_id', sa.String), ('server_group_id', sa.String),
        *_TIMES),
    'floatingip_reservations': _table(
        'floatingip_reservations', _ID, ('reservation_id', sa.String),
        ('network_id', sa.String), ('amount', sa.Integer), *_TIMES),
    'required_floatingips': _table(
        'required_floatingips', _ID,
        ('floatingip_reservation_id', sa.String), ('address', sa.String),
        *_TIMES),
    'computehost_allocations': _table(
        'computehost_allocations', _ID, ('compute_host_id', sa.String),
        ('reservation_id', sa.String), *_TIMES),
    'floatingip_allocations': _table(
        'floatingip_allocations', _ID, ('floatingip_id', sa.String),
        ('reservation_id', sa.String), *_TIMES),
    'events': _table(
        'events', _ID, ('lease_id', sa.String), ('event_type', sa.String),
        ('time', sa.DateTime), ('status', sa.String), *_TIMES),
}

# Target tables in the order they are written (keys before their users).
TARGET_MODELS = collections.OrderedDict([
    ('extra_capabilities', host_models.ExtraCapability),
    ('computehosts', host_models.ComputeHost),
    ('computehost_extra_capabilities',
     host_models.ComputeHostExtraCapability),
    ('floatingips', fip_models.FloatingIP),
    ('leases', lease_models.Lease),
    ('reservations', lease_models.Reservation),
    ('computehost_reservations', lease_models.ComputeHostReservation),
    ('instance_reservations', instance_models.InstanceReservation),
    ('floatingip_reservations', fip_models.FloatingIPReservation),
    ('required_floatingips', fip_models.RequiredFloatingIP),
    ('computehost_allocations', lease_models.ComputeHostAllocation),
    ('instance_allocations', instance_models.InstanceAllocation),
    ('floatingip_allocations', fip_models.FloatingIPAllocation),
    ('events', lease_models.Event),
])
# Written onto the hosts' resource providers once they exist: upstream's
# per-host traits and Placement inventory.
PROVIDER_TABLES = ('resource_provider_traits', 'inventories')


class UnsupportedRevision(exceptions.BlazarExtException):
    msg_fmt = ('The source database is at Blazar alembic revision '
               '%(found)s; import-blazar reads revision %(supported)s '
               '(Blazar 18.0.0). Upgrade it with blazar-db-manage first.')


class AlreadyImported(exceptions.BlazarExtException):
    msg_fmt = ('Nothing imported: blazar_ext already holds %(what)s of '
               'the source (a second import refuses rather than duplicate '
               'anything).')


@dataclasses.dataclass
class Skip:
    """A source row left out, and why."""

    table: str
    row_id: str
    reason: str


@dataclasses.dataclass
class QueryFailure:
    """A stored property query blazar_ext's language does not parse."""

    lease_id: str
    reservation_id: str
    message: str


@dataclasses.dataclass
class Plan:
    """What an import writes (rows per target table) and leaves out."""

    rows: dict = dataclasses.field(default_factory=lambda: {
        name: [] for name in (*TARGET_MODELS, *PROVIDER_TABLES)})
    skipped: list = dataclasses.field(default_factory=list)
    query_failures: list = dataclasses.field(default_factory=list)
    # {(reservation id, host id): index in rows['instance_allocations']}
    slot_rows: dict = dataclasses.field(default_factory=dict)

    def counts(self) -> dict:
        """{target table: rows to write}."""
        return {name: len(rows) for name, rows in self.rows.items()}

    def skip(self, table: str, row_id, reason: str) -> None:
        self.skipped.append(Skip(table, str(row_id), reason))


# --- Reading ---------------------------------------------------------------

def source_revision(engine) -> str | None:
    """The source's alembic revision; None without an alembic_version."""
    if not sa.inspect(engine).has_table('alembic_version'):
        return None
    with engine.connect() as conn:
        return conn.execute(sa.text(
            'SELECT version_num FROM alembic_version')).scalar()


def check_revision(engine) -> None:
    """UnsupportedRevision unless the source is at Blazar 18's head."""
    found = source_revision(engine)
    if found != SUPPORTED_REVISION:
        raise UnsupportedRevision(found=found or 'none (no alembic_version)',
                                  supported=SUPPORTED_REVISION)


def read_source(engine) -> dict:
    """{upstream table: [row dict]} of every table the import reads, in
    one read transaction (a consistent snapshot where the database
    offers one)."""
    out = {}
    with engine.connect() as conn, conn.begin():
        # A server-side cursor: the driver never holds a whole table
        # besides the dicts made of it.
        conn = conn.execution_options(stream_results=True,
                                      yield_per=_READ_BATCH)
        for name, table in SOURCE_TABLES.items():
            result = conn.execute(sa.select(*table.c).order_by(table.c.id))
            keys = list(result.keys())
            out[name] = [dict(zip(keys, row)) for row in result]
    return out


# --- Planning --------------------------------------------------------------

# {(id(source), table): ids}, built on first need while one plan runs.
_SOURCE_IDS: dict = {}


def _reserved_capability_names() -> set:
    """Names a host capability may not take: the host's own fields."""
    return set(host_models.ComputeHost.__table__.columns.keys()) | {'name'}


def _capability_problem(name: str | None, reserved: set) -> str | None:
    if not name or not name.strip():
        return 'empty capability name'
    if len(name) > 255:
        return 'capability name longer than 255 characters'
    if name in reserved:
        return ('capability name "%s" is a host field in blazar_ext'
                % name)
    return None


def detail_rows(source: dict, resource_type: str):
    """(reservation id, upstream detail row) of each reservation of
    ``resource_type`` in ``source``: what its plugin is asked to adopt."""
    table = DETAIL_TABLES[resource_type]
    ids = {r['id'] for r in source['reservations']
           if r['resource_type'] == resource_type}
    for row in source[table]:
        if row['reservation_id'] in ids:
            yield row['reservation_id'], row


def plan(source: dict, enabled_types, adopted: dict | None = None) -> Plan:
    """Decide every row: written (with its target values) or skipped.

    ``adopted``: {reservation id: {detail column: value} merged over its
    upstream detail row, or the reason (str) it cannot be kept}, as the
    enabled plugins translated them; a reservation of an ADOPTED_TYPES
    type is imported only with a translation.
    """
    _SOURCE_IDS.clear()
    result = Plan()
    hosts = _plan_hosts(source, result)
    capabilities = _plan_capabilities(source, result)
    _plan_capability_values(source, result, hosts, capabilities)
    _plan_host_extras(source, result, hosts)
    fips = _plan_floatingips(source, result)
    leases = _plan_leases(source, result, set(enabled_types),
                          adopted or {})
    _plan_allocations(source, result, leases, hosts, fips)
    _plan_events(source, result, leases)
    _SOURCE_IDS.clear()
    return result


def _plan_hosts(source, result: Plan) -> set:
    names = {}
    kept = set()
    for row in source['computehosts']:
        name = row['hypervisor_hostname']
        if not name:
            result.skip('computehosts', row['id'],
                        'no hypervisor_hostname')
            continue
        if name in names:
            result.skip('computehosts', row['id'],
                        'hypervisor_hostname %s is also host %s'
                        % (name, names[name]))
            continue
        if len(row['hypervisor_type'] or '') > 255:
            result.skip('computehosts', row['id'],
                        'hypervisor_type longer than 255 characters')
            continue
        names[name] = row['id']
        kept.add(row['id'])
        result.rows['computehosts'].append(dict(row, disabled=False))
    return kept


def _plan_capabilities(source, result: Plan) -> dict:
    """{upstream property id: (resource type, name)} of those kept."""
    reserved = _reserved_capability_names()
    types = set(capability_api.resource_types())
    kept = {}
    for row in source['resource_properties']:
        if row['resource_type'] not in types:
            result.skip('resource_properties', row['id'],
                        'resource type %s has no capabilities in blazar_ext'
                        % row['resource_type'])
            continue
        problem = _capability_problem(row['property_name'], reserved)
        if problem:
            result.skip('resource_properties', row['id'], problem)
            continue
        kept[row['id']] = row['resource_type']
        result.rows['extra_capabilities'].append({
            'id': row['id'], 'resource_type': row['resource_type'],
            'capability_name': row['property_name'],
            'private': bool(row['private']),
            'created_at': row['created_at'],
            'updated_at': row['updated_at']})
    return kept


def _plan_capability_values(source, result: Plan, hosts: set,
                            capabilities: dict) -> None:
    seen = {}
    for row in source['computehost_extra_capabilities']:
        host_id, property_id = row['computehost_id'], row['property_id']
        if host_id not in hosts:
            result.skip('computehost_extra_capabilities', row['id'],
                        _missing('host', host_id, source, 'computehosts'))
            continue
        if capabilities.get(property_id) != HOST_TYPE:
            result.skip('computehost_extra_capabilities', row['id'],
                        _missing('resource property', property_id, source,
                                 'resource_properties'))
            continue
        key = (host_id, property_id)
        if key in seen:
            result.skip('computehost_extra_capabilities', row['id'],
                        'host %s has another value for this capability '
                        '(row %s)' % (host_id, seen[key]))
            continue
        seen[key] = row['id']
        value = row['capability_value']
        result.rows['computehost_extra_capabilities'].append({
            'id': row['id'], 'computehost_id': host_id,
            'capability_id': property_id, 'capability_value': value,
            'capability_number': language.number_of(value),
            'created_at': row['created_at'],
            'updated_at': row['updated_at']})


def _plan_host_extras(source, result: Plan, hosts: set) -> None:
    """Upstream's per-host traits and Placement inventory (what its
    flavor plugin reads), for the hosts' providers."""
    _plan_per_host(source, result, hosts, 'computehost_trait', 'trait',
                   _trait_problem, 'resource_provider_traits',
                   'host %(host)s has this trait already (row %(row)s)')
    _plan_per_host(source, result, hosts, 'computehost_resource_inventory',
                   'resource_class', _inventory_problem, 'inventories',
                   'host %(host)s has another %(name)s inventory '
                   '(row %(row)s)')


def _plan_per_host(source, result: Plan, hosts: set, table: str, key: str,
                   problem_of, target: str, duplicate: str) -> None:
    """Rows of ``table`` (one per host and ``key``) kept for ``target``
    unless ``problem_of(row)`` says why not, their host was left out, or
    the host has one already (``duplicate`` says so, given host, name and
    the first row's id)."""
    seen = {}
    for row in source[table]:
        host_id, name = row['computehost_id'], row[key]
        problem = problem_of(row)
        if host_id not in hosts:
            problem = _missing('host', host_id, source, 'computehosts')
        elif (host_id, name) in seen:
            problem = duplicate % {'host': host_id, 'name': name,
                                   'row': seen[host_id, name]}
        if problem:
            result.skip(table, row['id'], problem)
            continue
        seen[host_id, name] = row['id']
        result.rows[target].append(row)


_CUSTOM = re.compile(r'^CUSTOM_[A-Z0-9_]{1,248}$')


def _trait_problem(row) -> str | None:
    name = row['trait']
    if name == host_service.DISABLED_TRAIT:
        return ('%s is set by blazar_ext from the host\'s reservable '
                'flag' % name)
    if name in _standard_traits() or _CUSTOM.match(name or ''):
        return None
    return ('trait %r is neither a standard trait (os-traits) nor '
            'CUSTOM_[A-Z0-9_]+' % name)


@functools.lru_cache(maxsize=1)
def _standard_traits() -> frozenset:
    return frozenset(os_traits.get_traits())


def _inventory_problem(row) -> str | None:
    name = row['resource_class']
    if not (name in os_resource_classes.STANDARDS
            or _CUSTOM.match(name or '')):
        return ('resource class %r is neither a standard class '
                '(os-resource-classes) nor CUSTOM_[A-Z0-9_]+' % name)
    low = {'total': 1, 'reserved': 0, 'min_unit': 1, 'max_unit': 1,
           'step_size': 1}
    for field, minimum in low.items():
        value = row[field]
        if value is None or not minimum <= value <= inventory_api.MAX_INT:
            return '%s inventory: %s %r out of range' % (name, field, value)
    if not (row['allocation_ratio'] or 0) > 0:
        return '%s inventory: allocation_ratio %r is not above 0' % (
            name, row['allocation_ratio'])
    if row['reserved'] > row['total']:
        return '%s inventory: reserved %d above total %d' % (
            name, row['reserved'], row['total'])
    if row['min_unit'] > row['max_unit']:
        return '%s inventory: min_unit %d above max_unit %d' % (
            name, row['min_unit'], row['max_unit'])
    return None


def _plan_floatingips(source, result: Plan) -> set:
    addresses = {}
    kept = set()
    for row in source['floatingips']:
        key = (row['floating_network_id'], row['floating_ip_address'])
        if key in addresses:
            result.skip('floatingips', row['id'],
                        'address %s on network %s is also floating IP %s'
                        % (key[1], key[0], addresses[key]))
            continue
        addresses[key] = row['id']
        kept.add(row['id'])
        result.rows['floatingips'].append(row)
    return kept


def _missing(what: str, ref, source, table: str) -> str:
    """Why a row pointing at ``ref`` in ``table`` is left out."""
    ids = _SOURCE_IDS.get((id(source), table))
    if ids is None:
        ids = _SOURCE_IDS[(id(source), table)] = {
            r['id'] for r in source[table]}
    if ref in ids:
        return '%s %s was skipped' % (what, ref)
    return 'dangling reference: %s %s does not exist' % (what, ref)


def _by(rows, key: str) -> dict:
    out = collections.defaultdict(list)
    for row in rows:
        out[row[key]].append(row)
    return out


def _plan_leases(source, result: Plan, enabled: set,
                 adopted: dict) -> dict:
    """{lease id: lease row} of the leases kept."""
    reservations = _by(source['reservations'], 'lease_id')
    details = {table: _by(source[table], 'reservation_id')
               for table in set(DETAIL_TABLES.values())}
    required = _by(source['required_floatingips'],
                   'floatingip_reservation_id')
    lease_ids = {row['id'] for row in source['leases']}
    for row in source['reservations']:
        if row['lease_id'] not in lease_ids:
            result.skip('reservations', row['id'],
                        'dangling reference: lease %s does not exist'
                        % row['lease_id'])
    kept = {}
    for lease in source['leases']:
        planned, problem = [], None
        for res in reservations.get(lease['id'], []):
            rows, problem = _plan_reservation(
                result, lease, res, enabled, details, required, adopted)
            if problem:
                result.skip('reservations', res['id'], problem)
                break
            planned.append(rows)
        if problem:
            result.skip('leases', lease['id'],
                        'its reservation %s was skipped: %s'
                        % (res['id'], problem))
            continue
        kept[lease['id']] = lease
        result.rows['leases'].append(lease)
        for rows in planned:
            for table, values in rows:
                result.rows[table].append(values)
    known = {r['id'] for r in source['reservations']}
    for table in sorted(set(DETAIL_TABLES.values())):
        for row in source[table]:
            if row['reservation_id'] not in known:
                result.skip(table, row['id'],
                            'dangling reference: reservation %s does not '
                            'exist' % row['reservation_id'])
    fip_details = {r['id'] for r in source['floatingip_reservations']}
    for row in source['required_floatingips']:
        if row['floatingip_reservation_id'] not in fip_details:
            result.skip('required_floatingips', row['id'],
                        'dangling reference: floatingip_reservation %s '
                        'does not exist' % row['floatingip_reservation_id'])
    return kept


def _plan_reservation(result: Plan, lease, res, enabled, details, required,
                      adopted):
    """([(target table, values)], None) or (None, why it is skipped)."""
    kind = res['resource_type']
    if kind not in IMPORTABLE_TYPES:
        return None, 'unknown reservation type %s' % kind
    if kind not in enabled:
        return None, ('the %s plugin is disabled ([manager] plugins)'
                      % kind)
    table = DETAIL_TABLES[kind]
    found = details[table].get(res['id'], [])
    if len(found) != 1:
        return None, '%d %s rows (one expected)' % (len(found), table)
    detail = found[0]
    translated = adopted.get(res['id'])
    if isinstance(translated, str):
        return None, translated
    if translated:
        detail = dict(detail, **translated)
    elif kind in ADOPTED_TYPES:
        return None, ('the %s plugin did not translate its upstream '
                      'detail row' % kind)
    if kind == HOST_TYPE:
        problem = _host_detail_problem(detail)
        if problem:
            return None, problem
    if kind != FLOATINGIP_TYPE:
        problem = _query_problem(detail.get('hypervisor_properties') or '',
                                 detail['resource_properties'])
        if problem:
            result.query_failures.append(
                QueryFailure(lease['id'], res['id'], problem))
            return None, 'property query does not parse: %s' % problem
    rows = [('reservations', res), (table, detail)]
    if kind == FLOATINGIP_TYPE:
        rows.extend(('required_floatingips', r)
                    for r in required.get(detail['id'], []))
    return rows, None


@functools.lru_cache(maxsize=4096)
def _query_problem(hypervisor_properties, resource_properties) -> str | None:
    """Why the two stored queries do not compile, or None; the same
    queries recur across thousands of reservations, so parsed once."""
    try:
        host_properties.HostQuery(hypervisor_properties,
                                  resource_properties).compile()
    except exceptions.Invalid as exc:
        return str(exc)
    return None


def _host_detail_problem(detail) -> str | None:
    low, _sep, high = (detail['count_range'] or '').partition('-')
    if not (low.isdigit() and high.isdigit() and 0 < int(low) <= int(high)):
        return 'count_range %r is not "min-max"' % detail['count_range']
    return None


def _plan_allocations(source, result: Plan, leases: dict, hosts: set,
                      fips: set) -> None:
    reservation_lease = {r['id']: r['lease_id']
                         for r in result.rows['reservations']}
    instances = {r['reservation_id']: r
                 for r in result.rows['instance_reservations']}
    for table, column, targets, what in (
            ('computehost_allocations', 'compute_host_id', hosts, 'host'),
            ('floatingip_allocations', 'floatingip_id', fips,
             'floating IP')):
        source_table = ('computehosts' if what == 'host' else 'floatingips')
        for row in source[table]:
            lease_id = reservation_lease.get(row['reservation_id'])
            if lease_id is None:
                result.skip(table, row['id'], _missing(
                    'reservation', row['reservation_id'], source,
                    'reservations'))
                continue
            if row[column] not in targets:
                result.skip(table, row['id'], _missing(
                    what, row[column], source, source_table))
                continue
            lease = leases[lease_id]
            if row['reservation_id'] in instances:
                _add_instance_slot(result, row, instances, lease)
                continue
            result.rows[table].append(dict(
                row, start_date=lease['start_date'],
                end_date=lease['end_date']))


def _add_instance_slot(result: Plan, row, instances: dict, lease) -> None:
    """Upstream holds one host allocation per instance; blazar_ext one
    row per (reservation, host) with the instances as ``slots``."""
    held = result.rows['instance_allocations']
    key = (row['reservation_id'], row['compute_host_id'])
    index = result.slot_rows.get(key)
    if index is not None:
        held[index]['slots'] += 1
        return
    size = instances[row['reservation_id']]
    result.slot_rows[key] = len(held)
    held.append({
        'id': row['id'], 'compute_host_id': row['compute_host_id'],
        'reservation_id': row['reservation_id'], 'slots': 1,
        'vcpus': size['vcpus'], 'memory_mb': size['memory_mb'],
        'disk_gb': size['disk_gb'], 'start_date': lease['start_date'],
        'end_date': lease['end_date'], 'created_at': row['created_at'],
        'updated_at': row['updated_at']})


def _plan_events(source, result: Plan, leases: dict) -> None:
    for row in source['events']:
        if row['lease_id'] not in leases:
            result.skip('events', row['id'], _missing(
                'lease', row['lease_id'], source, 'leases'))
            continue
        empty = [k for k in ('event_type', 'time', 'status') if not row[k]]
        if empty:
            result.skip('events', row['id'], 'no %s' % ', '.join(empty))
            continue
        if row['status'] == 'IN_PROGRESS' and row['updated_at'] is None:
            # Upstream's manager stopped while running it. blazar_ext's
            # takes such an event over [manager] event_claim_timeout after
            # its claim (updated_at), which must therefore be set.
            row = dict(row, updated_at=row['created_at'] or row['time'])
        result.rows['events'].append(row)


# --- Writing ---------------------------------------------------------------

def write(context, planned: Plan) -> dict:
    """Write ``planned`` in one transaction; {target table: rows}.
    This spends the plan: its rows are dropped as they are sent.

    AlreadyImported, and nothing written, when any host, floating IP,
    lease or reservation of the plan is already there (by id, or a host
    by name).
    """
    with db_session.writer.using(context) as session, \
            bulk.loading(session.connection()) as conn:
        _refuse_duplicates(session, planned)
        rows = dict(planned.rows)
        rows['extra_capabilities'], rows['computehost_extra_capabilities'] = (
            _merge_capabilities(session, planned))
        providers = host_api.link_providers(
            context, session, rows['computehosts'])
        _write_provider_extras(context, session, providers, planned)
        out_of_service = [h['id'] for h in rows['computehosts']
                          if not h['reservable']]
        rows['computehosts'] = [
            dict(host, resource_provider_id=providers[host['id']],
                 reservable=True)
            for host in rows['computehosts']]
        # A row upstream left without created_at was created, as far as
        # blazar_ext knows, by this import.
        now = timeutils.utcnow()
        written = {name: len(values) for name, values in rows.items()}
        capability_ids = {row['capability_id'] for row
                          in rows['computehost_extra_capabilities']}
        for name, model in TARGET_MODELS.items():
            _insert(conn, model, rows[name], now)
            # Sent: the rows need not stay in memory (next to the
            # database's cache) until the commit; the plan is spent.
            rows[name] = planned.rows[name] = []
        # The distinct values properties discovery reads.
        capability_api.fill_values(session, host_api.RESOURCE_TYPE,
                                   capability_ids)
        for host_id in out_of_service:
            # As an operator's disable: the provider gets
            # COMPUTE_STATUS_DISABLED, and no health source brings the
            # host back on its own (upstream does not say who took it out).
            host_service.set_reservable(
                context, host_id, False, by=host_service.OPERATOR,
                reason='not reservable in Blazar when imported')
        return written


def _write_provider_extras(context, session, providers: dict,
                           planned: Plan) -> None:
    """Upstream's traits (added) and inventories (replacing the class's
    inventory taken from the host's columns) on the hosts' providers; a
    provider changed takes a new generation, as through Placement."""
    traits = planned.rows['resource_provider_traits']
    inventories = planned.rows['inventories']
    if not traits and not inventories:
        return
    conn = session.connection()
    trait_ids = _catalogue(session, placement_models.Trait,
                           {row['trait'] for row in traits},
                           lambda: trait_api.sync_standard_traits(context))
    class_ids = _catalogue(session, placement_models.ResourceClass,
                           {row['resource_class'] for row in inventories},
                           lambda: rc_api.sync_standard_classes(context))
    rpt = placement_models.ResourceProviderTrait
    wanted = {(providers[row['computehost_id']], trait_ids[row['trait']])
              for row in traits}
    held = set()
    for chunk in _chunks(sorted({p for p, _t in wanted})):
        held.update(session.execute(
            sa.select(rpt.resource_provider_id, rpt.trait_id)
            .where(rpt.resource_provider_id.in_(chunk))).all())
    bulk.insert_rows(conn, rpt.__table__, [
        {'resource_provider_id': p, 'trait_id': t}
        for p, t in sorted(wanted - held)])
    inv = placement_models.Inventory
    replaced = collections.defaultdict(set)
    for row in inventories:
        replaced[class_ids[row['resource_class']]].add(
            providers[row['computehost_id']])
    for class_id, provider_ids in replaced.items():
        for chunk in _chunks(sorted(provider_ids)):
            session.execute(sa.delete(inv).where(
                inv.resource_class_id == class_id,
                inv.resource_provider_id.in_(chunk)))
    bulk.insert_rows(conn, inv.__table__, [
        dict({f: row[f] for f in inventory_api.FIELDS},
             resource_provider_id=providers[row['computehost_id']],
             resource_class_id=class_ids[row['resource_class']])
        for row in inventories])
    # Instance reservations read the capacity these inventories give.
    instance_capacity.refresh(session, set().union(*replaced.values()))
    rp = placement_models.ResourceProvider
    changed = {p for p, _t in wanted} | set().union(*replaced.values())
    for chunk in _chunks(sorted(changed)):
        session.execute(sa.update(rp).where(rp.id.in_(chunk)).values(
            generation=rp.generation + 1))


def _catalogue(session, model, names: set, sync_standard) -> dict:
    """{name: id} of trait or resource class ``names``: standard ones
    synced from their library if missing, CUSTOM_ ones created."""
    def found():
        out = {}
        for chunk in _chunks(sorted(names)):
            out.update(session.execute(sa.select(model.name, model.id)
                                       .where(model.name.in_(chunk))).all())
        return out

    ids = found()
    missing = names - set(ids)
    if not missing:
        return ids
    if any(not name.startswith('CUSTOM_') for name in missing):
        sync_standard()
    bulk.insert_rows(session.connection(), model.__table__, [
        {'name': name} for name in sorted(missing)
        if name.startswith('CUSTOM_')])
    return found()


def _chunks(values: list, size: int = 500):
    """Slices of ``values`` small enough for an IN list anywhere."""
    for start in range(0, len(values), size):
        yield values[start:start + size]


def _refuse_duplicates(session, planned: Plan) -> None:
    # The target's keys, read once, rather than the plan's in IN lists:
    # one scan of each table instead of hundreds of queries.
    found = []
    for name, column, key in (
            ('computehosts', host_models.ComputeHost.id, 'id'),
            ('computehosts', host_models.ComputeHost.hypervisor_hostname,
             'hypervisor_hostname'),
            ('floatingips', fip_models.FloatingIP.id, 'id'),
            ('leases', lease_models.Lease.id, 'id'),
            ('reservations', lease_models.Reservation.id, 'id')):
        if not planned.rows[name]:
            continue
        present = set(session.scalars(sa.select(column)))
        count = sum(1 for row in planned.rows[name] if row[key] in present)
        if count:
            found.append('%d %s (by %s)' % (count, name, key))
    if found:
        raise AlreadyImported(what=', '.join(found))


def _merge_capabilities(session, planned: Plan) -> tuple:
    """Capability names blazar_ext already knows keep their id here; the
    values pointing at the upstream id point at it instead."""
    model = host_models.ExtraCapability
    existing = {(t, n): i for t, n, i in session.execute(
        sa.select(model.resource_type, model.capability_name, model.id))}
    names, renamed = [], {}
    for row in planned.rows['extra_capabilities']:
        key = (row['resource_type'], row['capability_name'])
        if key in existing:
            renamed[row['id']] = existing[key]
        else:
            names.append(row)
    values = planned.rows['computehost_extra_capabilities']
    if renamed:
        values = [dict(row, capability_id=renamed.get(row['capability_id'],
                                                      row['capability_id']))
                  for row in values]
    return names, values


def _insert(conn, model, rows: list, now) -> None:
    try:
        bulk.insert_rows(conn, model.__table__, rows,
                         fill={'created_at': now})
    except db_exc.DBDuplicateEntry as exc:
        raise AlreadyImported(what='a row of %s (%s)' % (
            model.__tablename__, ', '.join(exc.columns or [])))
