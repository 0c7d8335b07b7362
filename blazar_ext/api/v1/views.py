"""Response bodies of the v1 API, shaped as upstream Blazar's."""

import datetime
import json

from blazar_ext.plugins import loader

HOST_COLUMNS = ('hypervisor_hostname', 'vcpus', 'cpu_info', 'hypervisor_type',
                'hypervisor_version', 'memory_mb', 'local_gb',
                'service_name', 'availability_zone', 'status', 'trust_id',
                'reservable', 'disabled', 'reservable_reason')


def timestamp(value) -> str | None:
    """A lease date or event time as Blazar's RPC writes it:
    'YYYY-MM-DDTHH:MM:SS.ffffff'; accepts datetimes or strings (datetimes
    cross RPC as ISO strings)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    if value.tzinfo is None:
        # The same text as the strftime below, several times faster: a
        # lease list formats a dozen per lease.
        return value.isoformat(timespec='microseconds')
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f')


def record_time(value) -> str | None:
    """A row's created_at or updated_at as Blazar shows them:
    'YYYY-MM-DD HH:MM:SS.ffffff'; datetimes or ISO strings."""
    text = timestamp(value)
    return text if text is None else text.replace('T', ' ', 1)


def host(values: dict, show_private: bool) -> dict:
    """A host with its (visible) extra capabilities as top-level keys."""
    body = {name: values.get(name) for name in HOST_COLUMNS}
    # Upstream shows '' for a host whose zone it does not know.
    body['availability_zone'] = body['availability_zone'] or ''
    body['id'] = str(values['id'])
    body['created_at'] = record_time(values.get('created_at'))
    body['updated_at'] = record_time(values.get('updated_at'))
    for name, capability in sorted(values['capabilities'].items()):
        if show_private or not capability['private']:
            body.setdefault(name, capability['value'])
    return body


def listed_columns(fields: frozenset | None = None) -> list:
    """The computehosts columns a host of a listing shows (all, or those
    of ``fields``), in host()'s order; db.api.host.host_pages() writes
    them, and the capabilities, into each host's JSON."""
    names = HOST_COLUMNS + ('id', 'created_at', 'updated_at')
    return [name for name in names if fields is None or name in fields]


def host_list_chunks(pages, next_href=None):
    """The bytes of {"hosts": [...]} a page at a time from
    db.api.host.host_pages(), so the whole body is never in memory.
    ``next_href(last_id, count)`` is called after the last page; a link
    it returns is shown in 'hosts_links'."""
    yield b'{"hosts": ['
    separator = b''
    last, count = None, 0
    for page in pages:
        # Each host's JSON is the database's: a join per page.
        yield separator + ', '.join(text for _id, text in page).encode()
        separator = b', '
        last, count = page[-1][0], count + len(page)
    yield b']'
    href = next_href(last, count) if next_href else None
    if href:
        yield (', "hosts_links": %s'
               % json.dumps([{'rel': 'next', 'href': href}])).encode()
    yield b'}'


_LEASE_COLUMNS = ('id', 'name', 'status', 'degraded', 'user_id',
                  'project_id', 'trust_id')
_RESERVATION_COLUMNS = ('id', 'lease_id', 'status', 'resource_id',
                        'resource_type', 'missing_resources',
                        'resources_changed')


def _stamps(body: dict, values: dict, iso: bool = False,
            times: '_Times | None' = None) -> dict:
    """``iso``: as upstream answers a write that returns the row as its
    manager wrote it (a floating IP created, a property changed):
    'YYYY-MM-DDTHH:MM:SS.ffffff'. ``times``: a listing's memo."""
    if times is not None:
        shown = times.record
    else:
        shown = timestamp if iso else record_time
    body['created_at'] = shown(values.get('created_at'))
    body['updated_at'] = shown(values.get('updated_at'))
    return body


class _Times:
    """timestamp() and record_time() of one answer, each distinct time
    formatted once: a listing's rows share most of theirs (a lease's rows
    are written in one transaction, its events fall on its dates), and
    formatting them was a tenth of a ten-lease list."""

    def __init__(self):
        self.iso = self._memo(timestamp)
        self.record = self._memo(record_time)

    @staticmethod
    def _memo(format_):
        cache: dict = {}

        def shown(value):
            if getattr(value, 'tzinfo', None) is not None:
                # Equal instants in two zones are equal keys but are
                # shown in their own zone's fields.
                return format_(value)
            try:
                return cache[value]
            except KeyError:
                text = cache[value] = format_(value)
                return text
        return shown


def reservation(values: dict, plugins: dict | None = None,
                times: _Times | None = None) -> dict:
    """``plugins``: the enabled plugins by type (looked up if None)."""
    body = {name: values.get(name) for name in _RESERVATION_COLUMNS}
    if plugins is None:
        plugins = loader.get().by_type
    plugin = plugins.get(values['resource_type'])
    if plugin is not None:  # the type's own fields, as it shows them
        body.update(plugin.view(values))
    return _stamps(body, values, times=times)


def event(values: dict, times: _Times | None = None) -> dict:
    body = {name: values.get(name)
            for name in ('id', 'lease_id', 'event_type', 'status')}
    body['time'] = (times.iso if times else timestamp)(values.get('time'))
    return _stamps(body, values, times=times)


def lease(values: dict, plugins: dict | None = None,
          times: _Times | None = None) -> dict:
    """A lease with its reservations and events, as Blazar shows it.
    ``plugins``: the enabled plugins by type (looked up if None);
    ``times``: a listing's memo of formatted times."""
    if plugins is None:
        plugins = loader.get().by_type
    iso = times.iso if times else timestamp
    body = {name: values.get(name) for name in _LEASE_COLUMNS}
    body['start_date'] = iso(values['start_date'])
    body['end_date'] = iso(values['end_date'])
    body['reservations'] = [reservation(r, plugins, times)
                            for r in values['reservations']]
    body['events'] = [event(e, times) for e in values['events']]
    return _stamps(body, values, times=times)


def leases(values: list) -> list:
    """Leases as lease() shows them; the plugins looked up once, each
    distinct time formatted once."""
    plugins = loader.get().by_type
    times = _Times()
    return [lease(one, plugins, times) for one in values]


_NESTED = frozenset(('reservations', 'events'))


def _lease_key(values: dict) -> tuple:
    """Everything lease() reads of ``values``: its columns, and each
    reservation's and event's, with their names."""
    return (tuple([item for item in values.items()
                   if item[0] not in _NESTED]),
            tuple([tuple(one.items()) for one in values['reservations']]),
            tuple([tuple(one.items()) for one in values['events']]))


class _LeaseTexts:
    """Each lease's JSON text, kept by the values it was made from.

    A polled listing (a dashboard, the calendar, a script waiting for
    ACTIVE) shows the same leases again and again; making their bodies
    and encoding them was a fifth of a ten-lease list. The key is every
    value lease() reads, so a lease changed in any column is a new key,
    never an old text. It relies on what rows read from the database
    have: naive times and one Python type per column (1 and True, equal
    keys, never share a column). A lease with an unhashable value (a
    list in a type's detail) is made each time. Up to AT_MOST texts are
    kept, then all are dropped; a listing of more leases than that is
    made whole, without keys (they could not all be kept, and making the
    keys cost a quarter of making the texts); another set of enabled
    plugins starts afresh.
    """

    AT_MOST = 4096

    def __init__(self):
        self._plugins = None
        self._texts: dict = {}

    def texts(self, values: list, plugins: dict) -> list:
        """The JSON text of each lease of ``values`` (rows read from the
        database, with their details), as json.dumps(lease(...))."""
        if len(values) > self.AT_MOST:
            times = _Times()
            return [json.dumps(lease(one, plugins, times)) for one in values]
        if plugins is not self._plugins:
            self._plugins, self._texts = plugins, {}
        texts = self._texts
        times = None
        shown = []
        for one in values:
            try:
                key = _lease_key(one)
                shown.append(texts[key])
                continue
            except KeyError:
                pass
            except TypeError:  # unhashable: made, not kept
                key = None
            times = times or _Times()
            text = json.dumps(lease(one, plugins, times))
            if key is not None:
                if len(texts) >= self.AT_MOST:
                    texts.clear()
                texts[key] = text
            shown.append(text)
        return shown


_LEASE_TEXTS = _LeaseTexts()


def leases_json(values: list) -> bytes:
    """The body {"leases": [...]} of leases read from the database, the
    bytes json.dumps({'leases': leases(values)}) writes."""
    texts = _LEASE_TEXTS.texts(values, loader.get().by_type)
    return ('{"leases": [%s]}' % ', '.join(texts)).encode()


def lease_json(values: dict) -> bytes:
    """The body {"lease": {...}} of a lease read from the database, the
    bytes json.dumps({'lease': lease(values)}) writes."""
    text, = _LEASE_TEXTS.texts([values], loader.get().by_type)
    return ('{"lease": %s}' % text).encode()


def resource_property(values: dict, iso: bool = False) -> dict:
    """Upstream Blazar's resource_property row; ``iso`` as _stamps()."""
    body = {name: values[name] for name in (
        'resource_type', 'property_name', 'private')}
    body['id'] = str(values['id'])
    return _stamps(body, values, iso)


def floatingip(values: dict, iso: bool = False) -> dict:
    """A floating IP; ``iso`` as _stamps()."""
    body = {name: values.get(name) for name in (
        'id', 'floating_network_id', 'floating_ip_address', 'subnet_id',
        'reservable')}
    return _stamps(body, values, iso)


def _allocated(reservations: list) -> list:
    return [{'id': r['id'], 'lease_id': r['lease_id'],
             'start_date': timestamp(r['start_date']),
             'end_date': timestamp(r['end_date'])} for r in reservations]


def host_allocation(host_id, reservations: list,
                    reservable: bool | None = None) -> dict:
    """Blazar's {resource_id, reservations: [{id, lease_id, start_date,
    end_date}]}, and whether the host is in service (an extension)."""
    return {'resource_id': str(host_id), 'reservable': reservable,
            'reservations': _allocated(reservations)}


def floatingip_allocation(fip_id: str, reservations: list) -> dict:
    """The same shape for a floating IP."""
    return {'resource_id': fip_id, 'reservations': _allocated(reservations)}
