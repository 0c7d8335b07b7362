"""The JSON documents enforcement filters receive.

The manager hands the chain plain lease dicts as it has them (database rows
with their reservations and allocations). Filters, and the external service
behind ExternalServiceFilter, receive only what the usage enforcement spec
promises: the request context (user_id, project_id, auth_url, region_name)
and the user-controllable parts of the lease, each reservation with its
allocations and the allocated resources' extra capabilities. Internal ids
and bookkeeping timestamps are never sent.
"""

import datetime

# Lease keys a user sets (the Blazar v1 API's lease body).
LEASE_FIELDS = ('name', 'start_date', 'end_date', 'before_end_date')

# Bookkeeping that never leaves blazar_ext, at any level of the document.
INTERNAL_FIELDS = frozenset({
    'id', 'lease_id', 'reservation_id', 'resource_id', 'compute_host_id',
    'floatingip_id', 'aggregate_id', 'trust_id', 'user_id', 'project_id',
    'status', 'status_reason', 'degraded', 'missing_resources',
    'resources_changed', 'deleted', 'deleted_at', 'created_at',
    'updated_at', 'events', 'allocations', 'count_range', 'computehost_id',
    'resource_provider_id', 'generation', 'service_name', 'trust',
})

# Keys under which the manager may carry a resource's extra capabilities.
CAPABILITY_KEYS = ('extra', 'extra_capabilities', 'capabilities')

# Keys under which an allocation may nest the allocated resource.
RESOURCE_KEYS = ('host', 'floatingip', 'resource')

# What identifies an allocated resource, kept although it is an id: the
# spec's examples carry it so a policy can tell resources apart.
RESOURCE_ID_FIELDS = ('id',)

DATE_FORMAT = '%Y-%m-%d %H:%M'


def format_date(value):
    """Dates as the Blazar API takes them: "YYYY-MM-DD HH:MM".

    Seconds are added only when present, so both the spec's examples and
    ``datetime.fromisoformat`` read every value sent.
    """
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(
                tzinfo=None)
        if value.second or value.microsecond:
            return value.strftime('%Y-%m-%d %H:%M:%S')
        return value.strftime(DATE_FORMAT)
    return value


def parse_date(value) -> datetime.datetime | None:
    """Read a date from a payload (string or datetime); None if unreadable.

    Timezone-aware values are converted to naive UTC, as stored.
    """
    if isinstance(value, datetime.datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    else:
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(datetime.timezone.utc).replace(
            tzinfo=None)
    return parsed


def _plain(value):
    """JSON-ready copy of a value: dates formatted, containers copied."""
    if isinstance(value, (datetime.datetime, datetime.date)):
        return format_date(value) if isinstance(
            value, datetime.datetime) else value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    return value


def _capabilities(source: dict) -> dict | None:
    for key in CAPABILITY_KEYS:
        value = source.get(key)
        if value is None:
            continue
        caps = {}
        if isinstance(value, dict):
            for name, item in value.items():
                # The host API's shape: {name: {'value': v, 'private': p}}.
                if isinstance(item, dict) and 'value' in item:
                    item = item['value']
                caps[str(name)] = _plain(item)
            return caps
        # A list of rows: [{'capability_name': .., 'capability_value': ..}]
        for row in value:
            name = row.get('capability_name', row.get('property'))
            caps[name] = row.get('capability_value', row.get('value'))
        return caps
    return None


def allocation_payload(allocation: dict) -> dict:
    """The allocated resource: its operator-defined attributes and extras."""
    resource = allocation
    for key in RESOURCE_KEYS:
        if isinstance(allocation.get(key), dict):
            resource = allocation[key]
            break
    doc = {}
    for key, value in resource.items():
        if key in CAPABILITY_KEYS or key.endswith('_at'):
            continue
        if key in INTERNAL_FIELDS and key not in RESOURCE_ID_FIELDS:
            continue
        doc[key] = _plain(value)
    if 'id' in doc and doc['id'] is not None:
        doc['id'] = str(doc['id'])
    extra = _capabilities(resource)
    if extra is None and resource is not allocation:
        extra = _capabilities(allocation)
    if extra:
        doc['extra'] = extra
    return doc


def reservation_payload(reservation: dict) -> dict:
    """A reservation's user-set attributes with its allocations."""
    doc = {}
    for key, value in reservation.items():
        if key in INTERNAL_FIELDS or key.endswith('_at'):
            continue
        doc[key] = _plain(value)
    # Hosts are stored as a "min-max" range but requested as min and max.
    count_range = reservation.get('count_range')
    if count_range and 'min' not in doc and 'max' not in doc:
        low, _, high = str(count_range).partition('-')
        try:
            doc['min'] = int(low)
            doc['max'] = int(high or low)
        except ValueError:
            pass
    doc['allocations'] = [allocation_payload(a)
                          for a in reservation.get('allocations') or []]
    return doc


def lease_payload(lease: dict) -> dict:
    """The lease document of the spec, from a plain lease dict.

    ``end_time`` (the spec's name) and ``end_date`` (upstream Blazar's) are
    both sent with the same value so services written for either work.
    """
    doc = {}
    for key in LEASE_FIELDS:
        if lease.get(key) is not None:
            doc[key] = format_date(lease[key])
    if 'end_date' in doc:
        doc['end_time'] = doc['end_date']
    doc['reservations'] = [reservation_payload(r)
                           for r in lease.get('reservations') or []]
    return doc


def context_payload(context, conf, lease: dict | None = None,
                    prefer_lease_owner: bool = False) -> dict:
    """The request context of the spec.

    ``project_id`` is the lease's project when the lease has one (an admin
    may act on another project's lease; policies count against the owner).
    ``user_id`` is the user making the request; with ``prefer_lease_owner``
    (the event loop ending a lease has no user) the lease's user is used.
    """
    lease = lease or {}
    user_id = _ctx_value(context, 'user_id')
    if prefer_lease_owner or not user_id:
        user_id = lease.get('user_id') or user_id
    project_id = lease.get('project_id') or _ctx_value(context, 'project_id')
    return {
        'user_id': user_id,
        'project_id': project_id,
        'auth_url': _auth_url(conf),
        'region_name': conf.enforcement_keystone.region_name,
    }


def _ctx_value(context, name: str):
    if context is None:
        return None
    if isinstance(context, dict):
        return context.get(name)
    return getattr(context, name, None)


def _auth_url(conf) -> str | None:
    # auth_url belongs to the configured keystoneauth plugin and is only
    # registered once that plugin has been loaded; without it there is none.
    try:
        return conf.enforcement_keystone.auth_url or None
    except AttributeError:  # NoSuchOptError is an AttributeError
        return None
