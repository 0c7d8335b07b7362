"""Bodies no API family accepts, and HEAD, on every route of the three.

The routes come from the routing tables: the Pecan controllers of the
reservation API (api_routes.v1_routes), the placement router and the
metadefs router. A write route with no body factory here or in
api_routes.VALID_BODIES fails the coverage test, so a new route cannot
skip the checks.
"""

import gzip
import json
import logging
import re

import fixtures
import sqlalchemy as sa
import webob

from blazar_ext.api import app as api_app
from blazar_ext.tests import base
from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional import api_routes

RP_UUID = api_routes.RP_UUID
LATEST = {'OpenStack-API-Version': 'placement latest'}

# Write routes that read no body (PUT /traits/{name}, POST of one tag by
# its path): nothing to refuse there.
NO_BODY = {('PUT', '/placement/traits/{}'),
           ('POST', '/v2/metadefs/namespaces/{}/tags/{}')}

# Bodies of write routes the fuzzer has none for.
EXTRA_BODIES = {
    ('POST', '/placement/reshaper'): lambda: {
        'inventories': {RP_UUID: {'resource_provider_generation': 1,
                                  'inventories': {'VCPU': {'total': 8}}}},
        'allocations': {}},
}

# Routes whose body exists only before a microversion.
VERSIONS = {('PUT', '/placement/resource_classes/{}'): '1.6'}

# Non-finite numbers as a client writes them, and the words the 400 names.
NON_FINITE = [('NaN', 'NaN'), ('Infinity', 'Infinity'),
              ('-Infinity', '-Infinity'), ('1e999', '1e999')]

_MARK = '__non_finite__'


def _all_routes() -> list:
    return (api_routes.v1_routes() + api_routes.placement_routes()
            + api_routes.metadefs_routes())


def _bodies() -> dict:
    """{(method, template key): body factory}."""
    factories = {**api_routes.VALID_BODIES, **EXTRA_BODIES}
    return {(m, api_routes.template_key(t)): f
            for (m, t), f in factories.items()}


def _leaves(node, found=None) -> list:
    """(container, key) of every scalar in ``node``, depth first."""
    found = [] if found is None else found
    items = (node.items() if isinstance(node, dict)
             else enumerate(node) if isinstance(node, list) else ())
    for key, child in items:
        if isinstance(child, (dict, list)) and child:
            _leaves(child, found)
        else:
            found.append((node, key))
    return found


def with_literal(body, index: int, literal: str) -> bytes:
    """``body`` as JSON text with its index-th scalar (cyclically)
    replaced by ``literal``, which json.dumps cannot write."""
    leaves = _leaves(body)
    container, key = leaves[index % len(leaves)]
    container[key] = _MARK
    return json.dumps(body).replace('"%s"' % _MARK, literal).encode()


_family = api_routes.family


class BadBodyTestCase(base.APITestCase):
    """The fuzzer's seeded service: real ids for every path parameter."""

    def setUp(self):
        super().setUp()
        self.conf.set_override('event_interval', 3600, group='manager')
        self.conf.set_override('capability_default_visibility', 'public')
        self.ids = api_routes.seed(self.request)

    def fill(self, template: str) -> str:
        """A path for ``template`` naming seeded resources."""
        def value(match):
            name = match.group(1)
            if name == 'name':
                return self._name_in(template[:match.start()])
            return self.ids[{'property': 'name'}.get(name, name)][0]
        return re.sub(r'\{(\w+)\}', value, template)

    @staticmethod
    def _name_in(prefix: str) -> str:
        for part, name in (('/objects/', 'o1'), ('/tags/', 't1'),
                           ('/schemas/metadefs/', 'namespace'),
                           ('/traits/', 'CUSTOM_FUZZ'),
                           ('/resource_classes/', 'CUSTOM_FUZZ'),
                           ('/v1/', 'rack'), ('/properties/', 'p1')):
            if prefix.endswith(part) or (part == '/v1/' and
                                         prefix.startswith('/v1/')):
                return name
        raise AssertionError('no seeded name for %s{name}' % prefix)

    def headers(self, method: str, template: str) -> dict:
        if _family(template) != 'placement':
            return {}
        if template.endswith('/reshaper'):
            # Placement's default: the reshaper is for services only.
            return dict(LATEST, **{'X-Roles': 'admin,service',
                                   'X-User-Id': 'admin',
                                   'X-Project-Id': 'admin'})
        version = VERSIONS.get((method, api_routes.template_key(template)))
        return ({'OpenStack-API-Version': 'placement ' + version}
                if version else dict(LATEST))

    def snapshot(self) -> dict:
        """Every row of every table, to show that nothing was written."""
        with self.db.engine.connect() as conn:
            tables = sa.inspect(conn).get_table_names()
            return {name: sorted(repr(tuple(row)) for row in conn.execute(
                sa.text('SELECT * FROM %s' % name))) for name in tables}


class TestNonFiniteNumbers(BadBodyTestCase):
    """NaN, Infinity, -Infinity and 1e999 in any JSON body are a 400
    naming them, in the family's error shape, and nothing is stored."""

    def test_every_write_route_has_a_body_or_reads_none(self):
        bodies = _bodies()
        writes = {(m, api_routes.template_key(t)) for m, t in _all_routes()
                  if m in ('POST', 'PUT', 'PATCH')}
        self.assertEqual(set(), writes - NO_BODY - set(bodies))
        self.assertEqual(set(), (set(bodies) | NO_BODY) - writes)
        self.assertGreater(len(writes - NO_BODY), 25)

    def test_refused_on_every_route_with_a_json_body(self):
        bodies = _bodies()
        before = self.snapshot()
        failures, sent = [], 0
        for method, template in api_routes.ordered(_all_routes()):
            factory = bodies.get((method, api_routes.template_key(template)))
            if factory is None:
                continue
            path = self.fill(template)
            family = _family(template)
            for index, (literal, named) in enumerate(NON_FINITE):
                body = api_routes.filled(factory(), self.ids)
                raw = with_literal(body, index, literal)
                resp = self.request(
                    method, path, raw=raw, headers=dict(
                        self.headers(method, template),
                        **{'Content-Type': 'application/json'}))
                sent += 1
                message = (api_routes.error_message(family, resp.json())
                           if resp.status == 400 else None)
                if not message or named not in message:
                    failures.append('%s %s %s -> %s %s' % (
                        method, path, raw[:200], resp.status,
                        resp.text[:300]))
        self.assertEqual([], failures)
        self.assertGreater(sent, 100)
        self.assertEqual(before, self.snapshot())

    def test_resource_properties_expression(self):
        # A JSON text inside a JSON string: the query language's parser.
        body = api_routes.lease_body()
        body['reservations'][0]['resource_properties'] = (
            '[">=", "$cores", NaN]')
        resp = self.request('POST', '/v1/leases', body)
        self.assertEqual(400, resp.status, resp.text)
        self.assertIn('resource_properties: NaN is not a JSON number',
                      resp.json()['error_message'])


class TestNonFiniteCapabilities(BadBodyTestCase):
    """A capability value that reads as NaN or an infinity is refused: as
    text it would match numeric comparisons ("inf" >= "4")."""

    def test_registration_and_update_refuse_them(self):
        for value in ('nan', 'NaN', 'inf', '-Inf', '+infinity', ' Infinity '):
            resp = self.request('POST', '/v1/os-hosts',
                                {'name': 'h9', 'gpu_memory': value})
            self.assertEqual(400, resp.status, (value, resp.text))
            self.assertIn("'gpu_memory': %r reads as NaN or an infinity"
                          % value, resp.json()['error_message'])
            resp = self.request('PUT', '/v1/os-hosts/%s'
                                % self.ids['host_id'][0],
                                {'cores': value})
            self.assertEqual(400, resp.status, (value, resp.text))
        # Words that merely contain them are words.
        for value in ('infiniband', 'nano', 'info'):
            resp = self.request('POST', '/v1/os-hosts',
                                {'name': 'h-' + value, 'nic': value})
            self.assertEqual(201, resp.status, resp.text)


class TestUndecodableBodies(BadBodyTestCase):
    """Compressed and non-UTF-8 bodies: a 400 in each family's shape and
    one warning line, never an error or a traceback."""

    ROUTES = [('POST', '/v1/os-hosts', {'name': 'hz'}),
              ('PUT', '/v1/leases/{lease_id}', {'name': 'renamed'}),
              ('POST', '/placement/resource_classes',
               {'name': 'CUSTOM_ZIP'}),
              ('PUT', '/placement/resource_providers/{uuid}/traits',
               {'traits': [], 'resource_provider_generation': 1}),
              ('POST', '/v2/metadefs/namespaces', {'namespace': 'Zip'}),
              ('PUT', '/v2/metadefs/namespaces/{namespace}/tags/{name}',
               {'name': 'zipped'})]

    def _send(self, template, raw, headers):
        log = self.useFixture(fixtures.FakeLogger(level=logging.WARNING))
        method, path = template[0], self.fill(template[1])
        resp = self.request(method, path, raw=raw, headers=dict(
            self.headers(method, template[1]),
            **{'Content-Type': 'application/json'}, **headers))
        self.assertEqual(400, resp.status, (path, resp.text))
        message = api_routes.error_message(_family(path), resp.json())
        lines = [line for line in log.output.splitlines() if line]
        self.assertEqual(1, len(lines), log.output)
        self.assertIn('Refused %s %s: ' % (method, path), lines[0])
        self.assertNotIn('Traceback', log.output)
        return message

    def test_compressed(self):
        before = self.snapshot()
        for route in self.ROUTES:
            for encoding in ('gzip', 'deflate', 'br', 'GZIP, identity'):
                message = self._send(
                    route, gzip.compress(json.dumps(route[2]).encode()),
                    {'Content-Encoding': encoding})
                self.assertIn('The request body is encoded '
                              '(Content-Encoding: %s); this service reads '
                              'only plain, uncompressed JSON.' % encoding,
                              message)
        self.assertEqual(before, self.snapshot())

    def test_not_utf8(self):
        before = self.snapshot()
        for route in self.ROUTES:
            text = json.dumps(route[2], ensure_ascii=False)
            message = self._send(route, text.encode('utf-8')[:-2] +
                                 b'\xff"}', {})
            self.assertIn('The request body is not valid UTF-8 (byte 0xff '
                          'at position', message)
            message = self._send(route, gzip.compress(text.encode()), {})
            self.assertIn('not valid UTF-8 (byte 0x8b at position 1); JSON '
                          'must be UTF-8 text. It looks gzip-compressed',
                          message)
            # Latin-1 text that is not UTF-8.
            latin1 = json.dumps({'name': '\u00e9t\u00e9'},
                                ensure_ascii=False).encode('latin-1')
            self._send(route, latin1, {})
        self.assertEqual(before, self.snapshot())

    def test_a_form_webob_cannot_parse(self):
        # Found by tools/schemathesis: Pecan reads request.params while
        # routing, and a multipart Content-Type without a boundary made
        # that a 500 on every v1 PUT, PATCH and DELETE.
        before = self.snapshot()
        routes = self.ROUTES + [('DELETE', '/v1/leases/{lease_id}', None),
                                ('PATCH', '/v1/os-hosts/properties/{name}',
                                 None)]
        for method, template, _ in routes:
            path = self.fill(template)
            for content_type in ('multipart/form-data',
                                 'multipart/form-data; boundary="ab "'):
                resp = self.request(method, path, raw=b'', headers=dict(
                    self.headers(method, template),
                    **{'Content-Type': content_type}))
                self.assertEqual(400, resp.status, (path, resp.text))
                self.assertIn(
                    'The request body is not a valid multipart/form-data '
                    'form (', api_routes.error_message(_family(path),
                                                       resp.json()))
        self.assertEqual(before, self.snapshot())

    def test_the_warning_is_one_line_whatever_the_path(self):
        log = self.useFixture(fixtures.FakeLogger(level=logging.WARNING))
        resp = self.request('POST', '/v1/os-hosts%0Aforged', raw=b'\xff',
                            headers={'Content-Type': 'application/json'})
        self.assertEqual(400, resp.status, resp.text)
        self.assertEqual(['Refused POST /v1/os-hosts\\nforged: The request '
                          'body is not valid UTF-8 (byte 0xff at position '
                          '0); JSON must be UTF-8 text.'],
                         log.output.splitlines())

    def test_identity_and_plain_utf8_pass(self):
        resp = self.request('POST', '/v1/os-hosts', raw=json.dumps(
            {'name': 'h\u00e9'}, ensure_ascii=False).encode(),
            headers={'Content-Type': 'application/json',
                     'Content-Encoding': 'identity'})
        self.assertEqual(201, resp.status, resp.text)


# Headers that differ between any two requests.
_VOLATILE = {'date', 'last-modified', 'x-openstack-request-id',
             'openstack-request-id'}


class TestHead(BadBodyTestCase):
    """HEAD on every GET route: GET's status and headers, no body."""

    def _send(self, method: str, path: str, headers: dict):
        """(status, headers, body): headers read before the body, which
        webob would otherwise measure into a Content-Length."""
        req = webob.Request.blank(path, method=method)
        req.headers['X-Auth-Token'] = 'admin'
        req.headers.update(headers)
        resp = req.get_response(self.api.app)
        kept = {k.lower(): v for k, v in resp.headers.items()
                if k.lower() not in _VOLATILE}
        return resp.status_int, kept, resp.body

    def test_head_on_every_get_route(self):
        differences, answered = [], 0
        for method, template in api_routes.ordered(_all_routes()):
            if method != 'GET':
                continue
            path = self.fill(template)
            headers = self.headers(method, template)
            get = self._send('GET', path, headers)
            head = self._send('HEAD', path, headers)
            if head[2]:
                differences.append('HEAD %s has a body' % path)
            if get[:2] != head[:2]:
                differences.append('%s: GET %s %s, HEAD %s %s' % (
                    path, get[0], get[1], head[0], head[1]))
            answered += head[0] < 400
        self.assertEqual([], differences)
        # Seeded ids: nearly every route finds what it reads.
        self.assertGreater(answered, 40)

    def test_head_keeps_the_length(self):
        get = self.request('GET', '/placement/resource_providers',
                           headers=LATEST)
        head = self.request('HEAD', '/placement/resource_providers',
                            headers=LATEST)
        self.assertEqual(str(len(get.body)), head.headers['Content-Length'])
        self.assertEqual(b'', head.body)


class TestPlacementAlone(base.DBTestCase):
    """blazar-ext-placement-api's application refuses the same bodies in
    Placement's shape, and answers HEAD."""

    def setUp(self):
        super().setUp()
        self.api = self.useFixture(
            blazar_fixtures.APIFixture(api_app.build_placement))

    def test_bad_bodies_and_head(self):
        for raw, headers, words in (
                (b'{"name": NaN}', {}, 'has NaN'),
                (gzip.compress(b'{}'), {'Content-Encoding': 'gzip'},
                 'Content-Encoding: gzip'),
                (b'{"name": "\xff"}', {}, 'not valid UTF-8')):
            resp = self.api.request(
                'POST', '/resource_classes', raw=raw, headers=dict(
                    LATEST, **{'Content-Type': 'application/json'},
                    **headers))
            self.assertEqual(400, resp.status, resp.text)
            self.assertIn(words, resp.json()['errors'][0]['detail'])
        resp = self.api.request('HEAD', '/resource_classes', headers=LATEST)
        self.assertEqual(200, resp.status)
        self.assertEqual(b'', resp.body)
