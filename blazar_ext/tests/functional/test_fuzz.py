"""Bad input against every route of the three API families, in process.

For each route (method + path template) of the reservation API (/v1), the
placement-compatible API (/placement) and the metadefs API (/v2), hypothesis
draws requests that are wrong in every way a client can be wrong: path
segments that are unicode, huge, percent-garbage or lone surrogates; query
strings with unknown, repeated, empty or undecodable parameters; headers
(Content-Type, Accept, OpenStack-API-Version, identity) with junk in them;
bodies that are absent, binary, truncated, deeply nested, or a valid body
for the route with fields removed, added or replaced by hostile values
(huge integers, NaN, unicode, 64 KiB strings, wrong types). Path parameters
are drawn from the ids of real seeded resources as well as from junk, so
requests reach the handlers and the database, not only the router.

Every response must be below 500, and every 4xx must be JSON with a
message, in the family's shape:

- /v1: ``{"error_code", "error_message", "error_name"}`` (Blazar);
- /placement: ``{"errors": [{"status", "title", "detail", ...}]}``;
- /v2: ``{"error": {"code", "title", "message"}}`` (what
  python-glanceclient reads).

The run is deterministic: each route has its own fixed seed (a CRC of its
method and template) and no example database is used, so CI draws the same
requests every time. ``BLAZAR_EXT_FUZZ_EXAMPLES`` sets the number of
examples per route (default %(default)d, sized so the file runs in well
under a minute); ``BLAZAR_EXT_FUZZ_SEED`` adds an offset to every route's
seed to explore new requests. A longer run, e.g.::

    BLAZAR_EXT_FUZZ_EXAMPLES=500 BLAZAR_EXT_FUZZ_SEED=7 \\
        python -m pytest -q blazar_ext/tests/functional/test_fuzz.py

Every route runs even when one fails; the failure lists the first bad
request of each failing route (no shrinking: the request is in the
message). Requests the fuzzer found answering 500 are kept as fixed
examples in TestKnownBadInput.
"""

import copy
import json
import os
import urllib.parse
import zlib

import hypothesis
from hypothesis import strategies as st
import webob

from blazar_ext.api.placement import router as placement_router
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import api_routes
from blazar_ext.tests.functional import backends

DEFAULT_EXAMPLES = 8
EXAMPLES = int(os.environ.get('BLAZAR_EXT_FUZZ_EXAMPLES') or
               DEFAULT_EXAMPLES)
SEED_OFFSET = int(os.environ.get('BLAZAR_EXT_FUZZ_SEED') or 0)
__doc__ = __doc__ % {'default': DEFAULT_EXAMPLES}

RP_UUID, CONSUMER = api_routes.RP_UUID, api_routes.CONSUMER
VALID_BODIES = api_routes.VALID_BODIES
VALID_QUERIES = api_routes.VALID_QUERIES


# Field names a handler might look for, to build plausible objects.
FIELD_NAMES = sorted({
    'name', 'uuid', 'id', 'start_date', 'end_date', 'reservations',
    'resource_type', 'min', 'max', 'hypervisor_properties',
    'resource_properties', 'traits', 'amount', 'network_id', 'private',
    'before_end', 'before_end_date', 'events', 'resource_provider_generation',
    'inventories', 'total', 'allocations', 'resources', 'project_id',
    'user_id', 'consumer_generation', 'consumer_type', 'aggregates',
    'namespace', 'visibility', 'protected', 'properties', 'objects', 'tags',
    'required', 'prefix', 'properties_target', 'type', 'title', 'items',
    'enum', 'operators', 'owner', 'display_name', 'description',
    'floating_network_id', 'floating_ip_address', 'subnet_id',
    'parent_provider_uuid', 'mappings', 'allocation_ratio', 'max_unit',
    'min_unit', 'step_size', 'reserved', 'vcpus', 'memory_mb', 'local_gb',
    'capability_name', 'values', 'minimum', 'maximum', 'pattern',
    'default', 'readonly', 'additionalItems', 'maxItems', 'minItems',
    'uniqueItems', 'maxLength', 'minLength'})

# Query parameter names the handlers read.
QUERY_NAMES = sorted({
    'detail', 'all', 'lease_id', 'reservation_id', 'project_id', 'user_id',
    'name', 'uuid', 'member_of', 'resources', 'in_tree', 'required',
    'limit', 'marker', 'sort_key', 'sort_dir', 'visibility',
    'resource_types', 'resource_type', 'associated', 'starts_with',
    'group_policy', 'root_required', 'same_subtree', 'consumer_type',
    'resources1', 'required1', 'member_of1', 'in_tree1', 'resourcesX',
    'namespace', 'format', 'start', 'end', 'count', 'duration',
    'hypervisor_properties', 'resource_properties', 'traits'})


# --- strategies -------------------------------------------------------------

NASTY_TEXT = [
    '', ' ', '\x00', '\t\n', 'null', 'None', 'true', 'false', '-1', '0',
    '1.5', '1e309', '-1e309', 'NaN', 'Infinity', '9' * 40, '-' + '9' * 25,
    '%s', '%(name)s', '{0}', '{}', '[]', '[[[[', "'", '"', '\\', '\\u0000',
    '../..', '/', '//', ';', ',', ',,', ':', ' a ', 'a' * 256, 'x' * 70000,
    '\u00e9t\u00e9', '\u6f22\u5b57', '\U0001f600', '\u202e\u0645',
    '\ud800', '\udfff', '\ufeff', '\uffff', '\x7f\x80\xff',
    '2026-13-45 25:61', '0000-00-00 00:00', '9999-12-31 23:59',
    '0001-01-01 00:00', '2020-01-01T00:00:00+25:00', 'now', 'tomorrow',
    'CUSTOM_', 'CUSTOM_\u00e9', 'VCPU:1', 'VCPU:-1', 'VCPU:x', 'VCPU',
    'VCPU:99999999999999999999', 'VCPU:1,VCPU:2', '!', '!!CUSTOM_X',
    'in:', 'in:,', '!in:a,b', 'physical:host', 'virtual:floatingip',
    '$vcpus', '["==", "$vcpus"]', '["and"]', '[">=", "$memory_mb", "x"]',
    '["<all-in>", "$rack", ""]', '["==", "$" , "1"]', '["or", [], []]',
    '[' * 200, '{"a": ' * 50, RP_UUID, RP_UUID.upper(), CONSUMER + 'x',
]

_huge_ints = st.sampled_from([2 ** 31, 2 ** 63, -2 ** 63 - 1, 2 ** 64,
                              10 ** 30, -10 ** 30, 10 ** 300])
_floats = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([1e308, -1e-308, 0.5, -0.0]))
_unicode = st.text(st.characters(blacklist_categories=()), max_size=40)


def _huge_text(min_size: int) -> st.SearchStrategy:
    return st.builds(lambda c, n: c * n,
                     st.sampled_from(['x', '\u00e9', '\U0001f600', ' ']),
                     st.integers(min_size, 70000))


text_values = st.one_of(st.sampled_from(NASTY_TEXT), _unicode,
                        _huge_text(256), st.text(max_size=10))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 10 ** 6),
                    _huge_ints, _floats, text_values)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES),
                                  text_values),
                        children, max_size=4)),
    max_leaves=12)


def _dump(value, ascii_only: bool) -> bytes:
    return json.dumps(value, ensure_ascii=ascii_only).encode(
        'utf-8', 'surrogatepass')


def _nested(depth: int, kind: str) -> bytes:
    if kind == 'list':
        return b'[' * depth + b']' * depth
    return b'{"a": ' * depth + b'1' + b'}' * depth


raw_bodies = st.one_of(
    st.binary(max_size=64),
    st.sampled_from([b'', b'{', b'}', b'[', b'null', b'true', b'0', b'""',
                     b'{"a": }', b'{"a": 1,}', b"{'a': 1}", b'\xff\xfe',
                     b'\xef\xbb\xbf{}', '{"x": "\u00e9"}'.encode('latin-1'),
                     '{}'.encode('utf-16'), b'{"a": NaN}',
                     b'{"a": Infinity}', b'{"a": 1e999999}',
                     b'{"a": 1' + b'0' * 5000 + b'}', b'[1, 2, 3',
                     b'{"a": "\\ud800"}', b'{"a": "\\u0000"}',
                     b'{"a": 1, "a": 2}', b'\x00' * 16]),
    st.builds(_nested, st.sampled_from([100, 5000, 100000]),
              st.sampled_from(['list', 'dict'])),
)


# Values that have broken parsers and databases: numbers past 32 and 64
# bits, NaN, lone surrogates, NUL, huge and unicode strings, wrong types.
hostile_scalars = st.one_of(_huge_ints, st.integers(), _floats,
                            st.sampled_from(NASTY_TEXT), _unicode,
                            _huge_text(256), st.none(), st.booleans(),
                            st.builds(list), st.builds(dict))


@st.composite
def mutated(draw, valid: dict):
    """``valid`` with one or two values replaced by hostile ones, or
    fields added or removed; mostly one leaf, so the rest of the body
    stays valid and the request reaches the code behind the schema."""
    body = copy.deepcopy(valid)
    for _ in range(draw(st.integers(1, 2))):
        slots, containers = [], []

        def walk(node):
            if isinstance(node, dict):
                containers.append(node)
                for key, child in node.items():
                    slots.append((node, key))
                    walk(child)
            elif isinstance(node, list):
                containers.append(node)
                for index, child in enumerate(node):
                    slots.append((node, index))
                    walk(child)
        walk(body)
        if slots and draw(st.integers(0, 3)):
            container, key = draw(st.sampled_from(slots))
            container[key] = draw(hostile_scalars)
            continue
        target = draw(st.sampled_from(containers))
        if isinstance(target, dict):
            key = draw(st.one_of(st.sampled_from(sorted(target) or ['x']),
                                 st.sampled_from(FIELD_NAMES), text_values))
            if key in target and draw(st.booleans()):
                del target[key]
            else:
                target[key] = draw(json_values)
        elif target:
            target[draw(st.integers(0, len(target) - 1))] = draw(json_values)
        else:
            target.append(draw(json_values))
    return body


def bodies(valid_factory, ids: dict):
    choices = [st.none(), raw_bodies,
               st.builds(_dump, json_values, st.booleans())]
    if valid_factory is not None:
        valid = api_routes.filled(valid_factory(), ids)
        mutations = st.builds(_dump, mutated(valid), st.booleans())
        # Mostly near-valid bodies: they get past the schema into the code.
        choices = [mutations, mutations, mutations] + choices
    return st.one_of(*choices)


def _quote(text: str) -> str:
    return urllib.parse.quote(text.encode('utf-8', 'surrogatepass'),
                              safe='')


segment_junk = st.one_of(
    st.builds(_quote, text_values),
    st.sampled_from(['%zz', '%', '%ff', '%c0%ae', '%e9', '%ed%a0%80',
                     '%00', '%2F', '..', '.', 'a%20b', '%F0%9F%98%80',
                     '%25', '%3F', '%23']))


def path_segments(valid: list) -> st.SearchStrategy:
    if valid:
        return st.one_of(st.sampled_from(valid), st.sampled_from(valid),
                         segment_junk)
    return segment_junk


def _query_string(pairs: list, raw: str | None) -> str:
    if raw is not None:
        return raw
    return urllib.parse.urlencode(
        [(k.encode('utf-8', 'surrogatepass'),
          v.encode('utf-8', 'surrogatepass')) for k, v in pairs])


query_strings = st.builds(
    _query_string,
    st.lists(st.tuples(st.one_of(st.sampled_from(QUERY_NAMES),
                                 text_values),
                       text_values), max_size=4),
    st.one_of(st.none(), st.none(), st.sampled_from([
        'a=%zz', '&&&', '=', '==', 'detail', '%ff=%fe', 'limit=1&limit=2',
        'resources=%00', ';;', 'x=' + 'y' * 10000, '%E2%80%AE=1',
        'required=' + ','.join(['CUSTOM_%d' % i for i in range(300)])])))


@st.composite
def mutated_query(draw, valid: dict) -> str:
    """``valid`` (a route's query) with a value replaced by a hostile
    one, a parameter dropped, repeated or added: mostly one change, so
    the request gets past the parameter checks into the handler."""
    pairs = list(valid.items())
    for _ in range(draw(st.integers(1, 2))):
        action = draw(st.integers(0, 5))
        if pairs and action <= 2:
            index = draw(st.integers(0, len(pairs) - 1))
            pairs[index] = (pairs[index][0], draw(text_values))
        elif pairs and action == 3:
            del pairs[draw(st.integers(0, len(pairs) - 1))]
        elif pairs and action == 4:
            pairs.append(draw(st.sampled_from(pairs)))
        else:
            pairs.append((draw(st.one_of(st.sampled_from(QUERY_NAMES),
                                         text_values)), draw(text_values)))
    return _query_string(pairs, None)


def queries(valid_factory, ids: dict) -> st.SearchStrategy:
    """Query strings for a route: junk, and mutations of its valid query
    where it has one."""
    if valid_factory is None:
        return query_strings
    valid = api_routes.filled(valid_factory(), ids)
    return st.one_of(st.just(_query_string(list(valid.items()), None)),
                     mutated_query(valid), mutated_query(valid),
                     query_strings)


_latin1 = st.text(st.characters(max_codepoint=255,
                                blacklist_characters='\r\n'), max_size=30)


@st.composite
def headers(draw, family: str):
    """Content-Type, Accept, microversion and identity headers."""
    out = {}
    content_type = draw(st.one_of(
        st.just('application/json'), st.just('application/json'),
        st.none(), st.sampled_from([
            'text/plain', 'application/json; charset=latin-1',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x', 'application/json-patch+json',
            'application/openstack-images-v2.1-json-patch', '*/*', ';',
            'application/json; charset=\u00e9']), _latin1))
    if content_type is not None:
        out['Content-Type'] = content_type
    if draw(st.booleans()):
        out['Accept'] = draw(st.one_of(st.sampled_from([
            'text/html', 'application/xml', '*/*', 'application/json;q=0',
            'image/png, text/*;q=0.5']), _latin1))
    if family == 'placement' or draw(st.integers(0, 5)) == 0:
        version = draw(st.one_of(
            st.just('placement latest'),
            st.builds('placement 1.{}'.format, st.integers(0, 45)),
            st.builds('placement {}'.format, _latin1),
            st.sampled_from(['placement', 'placement 2.0', 'compute 2.1',
                             'placement 1.', 'placement 1.2.3',
                             'placement 1.99999999999999999999',
                             'placement -1.0', 'placement 1.0, placement 1.5',
                             'placement 01.010'])))
        out['OpenStack-API-Version'] = version
    identity = draw(st.integers(0, 9))
    if identity == 0:
        out.update(fixtures.user_headers())
    elif identity == 1:
        out.update({'X-Roles': draw(_latin1),
                    'X-Project-Id': draw(_latin1),
                    'X-User-Id': draw(_latin1)})
    if draw(st.integers(0, 9)) == 0:
        out[draw(st.sampled_from([
            'X-Openstack-Append', 'X-Openstack-Request-Id',
            'X-Forwarded-Proto', 'X-Forwarded-Host', 'Forwarded',
            'If-Match', 'Range']))] = draw(_latin1)
    return out, identity in (0, 1)


# --- the test ---------------------------------------------------------------

def _json_error_asked(family: str, headers: dict) -> bool:
    """False where Placement's errors come as HTML: as upstream (webob),
    when the request's Accept prefers text/html to JSON."""
    if family != 'placement' or 'Accept' not in headers:
        return True
    accept = webob.acceptparse.create_accept_header(headers['Accept'])
    offers = accept.acceptable_offers(['application/json', 'text/html'])
    return not offers or offers[0][0] != 'text/html'


class TestFuzz(base.APITestCase):
    """Seeded service; each test fuzzes every route of one API family."""

    def setUp(self):
        super().setUp()
        # Events run only when asked; nothing moves under the fuzzer.
        self.conf.set_override('event_interval', 3600, group='manager')
        self.conf.set_override('capability_default_visibility', 'public')
        # Real resources whose ids the fuzzer uses as path parameters.
        self.valid = api_routes.seed(self.request)

    def _send(self, method, path, query, headers, body) -> webob.Response:
        req = webob.Request.blank(path, method=method)
        req.environ['QUERY_STRING'] = query
        req.headers['X-Auth-Token'] = 'admin'
        for name, value in headers.items():
            req.headers[name] = value
        if body is not None:
            req.body = body
        return req.get_response(self.api.app)

    def _check(self, family, method, path, query, headers, body, resp):
        where = '%s %s?%s headers=%r body=%r -> %s %s' % (
            method, path[:300], query[:300], headers,
            (body or b'')[:300], resp.status, resp.body[:600])
        self.assertLess(resp.status_int, 500, where)
        if resp.status_int < 400 or method == 'HEAD':
            return
        if (resp.content_type == 'text/html'
                and not _json_error_asked(family, headers)):
            # Placement, as upstream, answers in HTML when the client
            # prefers it (the middleware in front of it, size limit and
            # auth, answer JSON always).
            return
        self.assertTrue((resp.content_type or '').endswith('json'), where)
        try:
            decoded = json.loads(resp.body)
        except ValueError:
            self.fail('error body is not JSON: ' + where)
        self.assertIsNotNone(api_routes.error_message(family, decoded),
                             'no %s error message: %s' % (family, where))

    def _fuzz_route(self, method: str, template: str) -> None:
        family = api_routes.family(template)
        params = st.fixed_dictionaries(
            {n: path_segments(values) for n, values in
             api_routes.path_values(template, self.valid).items()})
        methods = st.one_of(st.just(method), st.just(method),
                            st.just(method), st.sampled_from([
                                'GET', 'POST', 'PUT', 'PATCH', 'DELETE',
                                'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND']))
        seed = zlib.crc32(('%s %s' % (method, template)).encode())

        @hypothesis.seed(seed + SEED_OFFSET)
        @hypothesis.settings(
            max_examples=EXAMPLES, deadline=None, database=None,
            derandomize=False, print_blob=False,
            # The failing request is in the message; shrinking would
            # replay hundreds of requests for little gain.
            phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
            suppress_health_check=list(hypothesis.HealthCheck))
        @hypothesis.given(verb=methods, values=params,
                          query=queries(VALID_QUERIES.get(
                              (method, template)), self.valid),
                          header_pair=headers(family),
                          body=bodies(VALID_BODIES.get((method, template)),
                                      self.valid),
                          trailing=st.sampled_from(['', '', '', '/']))
        def run(verb, values, query, header_pair, body, trailing):
            path = template.format(**values) + trailing
            header_values, _non_admin = header_pair
            resp = self._send(verb, path, query, header_values, body)
            self._check(family, verb, path, query, header_values, body,
                        resp)

        run()

    def _fuzz_family(self, routes: list) -> None:
        failures = []
        for method, template in api_routes.ordered(routes):
            try:
                self._fuzz_route(method, template)
            except Exception as exc:  # every route runs; all failures shown
                failures.append('%s %s: %s' % (method, template, exc))
        if failures:
            self.fail('%d route(s) failed:\n\n%s'
                      % (len(failures), '\n\n'.join(failures)))

    def test_valid_queries_are_answered(self):
        """The queries the fuzzer mutates get past the parameter checks:
        a 200 on the seeded service."""
        for (method, template), factory in sorted(VALID_QUERIES.items()):
            path = template.format(**{
                n: values[0] for n, values in
                api_routes.path_values(template, self.valid).items()})
            query = api_routes.filled(factory(), self.valid)
            resp = self.request(method, path + '?' + _query_string(
                list(query.items()), None))
            self.assertEqual(200, resp.status, '%s %s?%s: %s' % (
                method, path, query, resp.text))

    def test_v1(self):
        self._fuzz_family(api_routes.v1_routes())

    def test_placement(self):
        self._fuzz_family(api_routes.placement_routes())

    def test_metadefs(self):
        self._fuzz_family(api_routes.metadefs_routes())


class TestRouteTables(base.TestCase):
    """The fuzzer covers every route the apps declare."""

    def test_every_placement_route(self):
        routes = api_routes.placement_routes()
        self.assertIn(('GET', '/placement/'), routes)
        self.assertIn(('PUT', '/placement/resource_providers/{uuid}/'
                              'inventories/{resource_class}'), routes)
        self.assertEqual(sum(len(m) for p, m in
                             placement_router.ROUTES.items() if p),
                         len(set(routes)))
        self.assertEqual(len(routes), len(set(routes)))

    def test_every_metadefs_route(self):
        routes = api_routes.metadefs_routes()
        self.assertIn(('GET', '/v2/schemas/metadefs/{name}'), routes)
        self.assertIn(('DELETE', '/v2/metadefs/namespaces/{namespace}/tags/'
                                 '{name}'), routes)

    def test_every_v1_route(self):
        routes = api_routes.v1_routes()
        # Routes of sub-controllers, which a hand-written list missed.
        for route in (('GET', '/v1/floatingips/allocations'),
                      ('GET', '/v1/floatingips/{floatingip_id}/allocation'),
                      ('GET', '/v1/floatingips/calendar'),
                      ('GET', '/v1/os-hosts/availability'),
                      ('GET', '/v1/os-hosts/calendar'),
                      ('GET', '/v1/os-hosts/{host_id}/allocation'),
                      ('PATCH', '/v1/{resource_type}/properties/{name}')):
            self.assertIn(route, routes)
        self.assertEqual(len(set(routes)), len(routes))

    def test_valid_bodies_name_real_routes(self):
        routes = set(api_routes.v1_routes() + api_routes.placement_routes()
                     + api_routes.metadefs_routes())
        self.assertEqual(set(), set(VALID_BODIES) - routes)
        self.assertEqual(set(), set(VALID_QUERIES) - routes)


def _lease(reservation: dict) -> bytes:
    return json.dumps({'name': 'l', 'start_date': 'now',
                       'end_date': '2099-01-01 00:00',
                       'reservations': [reservation]}).encode()


class TestKnownBadInput(base.APITestCase):
    """Requests the fuzzer once found answered with a 500, kept as fixed
    examples: each must be the 4xx named, with a JSON message."""

    DEEP = b'[' * 5000 + b']' * 5000
    JSON = {'Content-Type': 'application/json'}
    MV = {'OpenStack-API-Version': 'placement latest'}
    CASES = [
        # json.loads raises RecursionError, not ValueError.
        ('POST', '/v1/leases', JSON, DEEP, 400),
        ('POST', '/placement/resource_providers', JSON, DEEP, 400),
        ('POST', '/v2/metadefs/namespaces', JSON, DEEP, 400),
        ('POST', '/v2/metadefs/namespaces', JSON,
         b'{"a": ' * 5000 + b'1' + b'}' * 5000, 400),
        # "\ud800" is valid JSON, but no character a database can store.
        ('POST', '/v1/os-hosts', JSON, b'{"name": "h\\ud800"}', 400),
        ('POST', '/v1/leases', JSON,
         b'{"name": "l", "start_date": "now", "end_date": "2099-01-01 00:00",'
         b' "reservations": [{"resource_type": "virtual:floatingip",'
         b' "network_id": "\\udfff", "amount": 1}]}', 400),
        ('POST', '/placement/resource_providers', JSON,
         b'{"name": "\\ud800"}', 400),
        ('POST', '/v2/metadefs/namespaces', JSON,
         b'{"namespace": "\\ud800x"}', 400),
        # Numbers past what SQL takes (SQLite: 64 bits, even to compare).
        ('POST', '/v1/leases', JSON, _lease({
            'resource_type': 'physical:host', 'min': 1, 'max': 10 ** 30}),
         400),
        ('POST', '/v1/leases', JSON, _lease({
            'resource_type': 'physical:host', 'min': '1', 'max': '9' * 40}),
         400),
        ('POST', '/v1/leases', JSON, _lease({
            'resource_type': 'virtual:floatingip', 'network_id': 'net-1',
            'amount': 10 ** 30}), 400),
        # str.isdigit() is true of '\u00b2', which int() refuses.
        ('POST', '/v1/leases', JSON, _lease({
            'resource_type': 'physical:host', 'min': '\u00b2', 'max': 2}),
         400),
        ('POST', '/v1/leases', JSON, _lease({
            'resource_type': 'virtual:floatingip', 'network_id': 'net-1',
            'amount': '\u00b2'}), 400),
        ('GET', '/placement/allocation_candidates?resources=VCPU:'
         + '9' * 20, MV, None, 400),
        ('GET', '/placement/resource_providers?resources=VCPU:' + '9' * 20,
         MV, None, 400),
        ('PUT', '/placement/resource_providers/%s/inventories' % RP_UUID,
         dict(JSON, **MV), b'{"resource_provider_generation": 1%s, '
         b'"inventories": {}}' % (b'0' * 30), 400),
        ('PUT', '/placement/resource_providers/%s/traits' % RP_UUID,
         dict(JSON, **MV), b'{"resource_provider_generation": 1%s, '
         b'"traits": []}' % (b'0' * 30), 400),
        ('PUT', '/placement/resource_providers/%s/aggregates' % RP_UUID,
         dict(JSON, **MV), b'{"resource_provider_generation": -1%s, '
         b'"aggregates": []}' % (b'0' * 30), 400),
        ('PUT', '/placement/allocations/%s' % CONSUMER, dict(JSON, **MV),
         b'{"allocations": {"%s": {"resources": {"VCPU": 1%s}}}, '
         b'"project_id": "p", "user_id": "u", "consumer_generation": null, '
         b'"consumer_type": "I"}' % (RP_UUID.encode(), b'0' * 30), 400),
        # Pecan decodes non-GET bodies with the declared charset.
        ('POST', '/v1/leases',
         {'Content-Type': 'application/json; charset=foo'}, b'{}', 415),
        ('DELETE', '/v1/floatingips/x',
         {'Content-Type': 'application/json; charset=\u00e9'}, b'{}', 415),
        # Collections have no PUT or DELETE.
        ('PUT', '/v1/leases', JSON, b'{}', 405),
        ('DELETE', '/v1/leases', {}, None, 405),
        ('PUT', '/v1/os-hosts', JSON, b'{}', 405),
        ('DELETE', '/v1/os-hosts', {}, None, 405),
        ('DELETE', '/v1/floatingips', {}, None, 405),
        # Pecan fills a handler's id from a query parameter or body key
        # of the same name: given twice, or as a list, it was a list.
        ('DELETE', '/v1/leases/?lease_id=a&lease_id=b', {}, None, 400),
        ('DELETE', '/v1/leases', JSON, b'{"lease_id": ["a"]}', 400),
        ('DELETE', '/v1/leases', JSON, b'{"lease_id": {"a": 1}}', 400),
        ('DELETE', '/v1/floatingips?floatingip_id=a&floatingip_id=b', {},
         None, 400),
        ('PUT', '/v1/os-hosts?host_id=a&host_id=b', JSON, b'{"rack": "r"}',
         400),
        ('PATCH', '/v1/os-hosts/properties?name=a&name=b', JSON,
         b'{"private": true}', 400),
        # An empty path segment names nothing.
        ('GET', '/v1/leases//', {}, None, 404),
        ('DELETE', '/v1/leases//', {}, None, 404),
        ('GET', '/v1/os-hosts/%2F/', {}, None, 404),
        ('PUT', '/v1/os-hosts//', JSON, b'{"a": 1}', 404),
        ('GET', '/v1/physical:host/properties//', {}, None, 404),
        ('GET', '/v1/os-hosts/properties//', {}, None, 404),
        # Paths and query strings that are not UTF-8.
        ('GET', '/placement/traits/%ff', {}, None, 400),
        ('GET', '/placement/resource_providers?name=%ff', {}, None, 400),
        ('GET', '/v2/schemas/metadefs/%ff', {}, None, 400),
        ('GET', '/v2/metadefs/namespaces?limit=%ff', {}, None, 400),
        ('DELETE', '/v2/metadefs/namespaces/%e9/objects/x', {}, None, 400),
    ]

    def setUp(self):
        super().setUp()
        resp = self.request('POST', '/placement/resource_providers',
                            {'name': 'rp1', 'uuid': RP_UUID},
                            headers=self.MV)
        self.assertEqual(200, resp.status, resp.text)

    def test_cases(self):
        for method, path, headers, body, status in self.CASES:
            req = webob.Request.blank(path, method=method)
            req.headers['X-Auth-Token'] = 'admin'
            req.headers.update(headers)
            if body is not None:
                req.body = body
            resp = req.get_response(self.api.app)
            where = '%s %s: %s' % (method, path, resp.body[:300])
            self.assertEqual(status, resp.status_int, where)
            self.assertIsNotNone(
                api_routes.error_message(api_routes.family(path),
                                         json.loads(resp.body)), where)

    def test_an_id_given_twice_names_itself(self):
        resp = self.request('DELETE', '/v1/leases/?lease_id=a&lease_id=b')
        self.assertEqual(400, resp.status, resp.text)
        self.assertEqual('lease_id must be one string, in the path; got a '
                         'list.', resp.json()['error_message'])

    def test_a_limit_past_64_bits_is_no_limit(self):
        resp = self.request(
            'GET', '/placement/allocation_candidates?resources=VCPU:1&limit='
            + '9' * 20, headers=self.MV)
        self.assertEqual(200, resp.status, resp.text)


class TestFuzzMySQL(backends.OnBackend, TestFuzz):
    """The same requests on MariaDB/MySQL: its own limits (integer ranges,
    column lengths, 4-byte characters) must give 4xx too."""
    BACKEND = 'mysql'


class TestFuzzPostgreSQL(backends.OnBackend, TestFuzz):
    """The same requests on PostgreSQL (strict types, no NUL in text)."""
    BACKEND = 'postgresql'
