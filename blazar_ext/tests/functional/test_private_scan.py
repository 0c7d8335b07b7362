"""No private capability reaches a non-admin, on any route.

Hosts are registered with public and private extra capabilities (made
private with PATCH .../properties/{name} {"private": true}, on both the
spec's route and python-blazarclient's), floating IPs beside them, a
private metadefs namespace that documents the private names, and leases
made by a non-admin and by the admin (whose resource_properties name the
private capabilities). Then a non-admin requests every route of the
three API families (api_routes reads them from the routing tables), with
every real id in the path: lists, shows, properties discovery with and
without detail, allocations, the calendars and availability, leases,
placement and metadefs reads, and the errors (403, 404, 405, 400) that
writes and bad paths give. No response, body or header, may contain a
private capability's name or value.

The scan runs twice: under the default policy (where most of it is 403)
and under a policy that opens every admin-only read to every user except
``blazar:properties:get_private`` (and ``blazar:leases:get_all_projects``:
other projects' leases repeat their authors' resource_properties
verbatim): the worst case an operator can configure, where the private
flag is all that stands between users and the private capabilities.
"""

import datetime
import itertools
import os
import re
import urllib.parse

from oslo_utils import timeutils
import yaml

from blazar_ext import policies
from blazar_ext.tests import base
from blazar_ext.tests import fixtures
from blazar_ext.tests.functional import api_routes

# Distinctive so that a hit can only be a leak.
PRIVATE_NAMES = ('zqxcap_alpha', 'zqxcap_beta')
PRIVATE_VALUES = ('zqxval-alpha-1', 'zqxval-alpha-2', 'zqxval-beta-1',
                  'zqxval-beta-2')
# Every private name starts with zqxcap and every value with zqxval, as do
# the private namespace's object and tag: a hit anywhere is a leak.
LEAK = re.compile('zqxcap|zqxval', re.IGNORECASE)
assert all(LEAK.match(word) for word in PRIVATE_NAMES + PRIVATE_VALUES)
# Admin-only reads the open policy leaves alone: seeing private data, and
# other projects' leases (whose bodies repeat their authors'
# resource_properties).
NOT_OPENED = ('blazar:properties:get_private',
              'blazar:leases:get_all_projects')


def _date(minutes: int) -> str:
    return (timeutils.utcnow() + datetime.timedelta(minutes=minutes)
            ).strftime('%Y-%m-%d %H:%M')


def open_read_policy() -> dict:
    """Every admin-only read open to everyone, except seeing private data.

    Rules that already decide by ownership or visibility (leases, metadefs
    namespaces) keep their defaults.
    """
    rules = {}
    for rule in policies.list_rules():
        methods = {op['method'] for op in getattr(rule, 'operations', [])}
        admin_only = (rule.check_str == 'rule:admin'
                      or rule.name.startswith('placement:'))
        if (methods == {'GET'} and admin_only
                and rule.name not in NOT_OPENED):
            rules[rule.name] = '@'
    return rules


class TestPrivateScan(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.conf.set_override('event_interval', 3600, group='manager')
        # New capabilities public by default: private ones are made so
        # explicitly, through the API.
        self.conf.set_override('capability_default_visibility', 'public')
        self.ids = self._seed()
        # A window over every seeded lease, for the calendar and
        # availability routes (URL-quoted).
        self.window = (_date(0).replace(' ', '%20'),
                       _date(600).replace(' ', '%20'))

    # --- helpers -------------------------------------------------------

    def _admin(self, method, path, body=None, expect=(200, 201, 204),
               **kwargs):
        resp = self.request(method, path, body, **kwargs)
        self.assertIn(resp.status, expect,
                      '%s %s: %s' % (method, path, resp.text))
        return resp.json() if resp.body else None

    def _user(self, method, path, body=None, headers=None):
        all_headers = dict(fixtures.user_headers(),
                           **{'OpenStack-API-Version': 'placement latest'})
        all_headers.update(headers or {})
        return self.request(method, path, body, token=None,
                            headers=all_headers)

    def _policy(self, rules: dict) -> None:
        path = os.path.join(self.useFixture(
            fixtures.fixtures.TempDir()).path, 'policy.yaml')
        with open(path, 'w') as f:
            yaml.safe_dump(rules, f)
        self.conf.set_override('policy_file', path, group='oslo_policy')
        fixtures.policy.reset()

    def _seed(self) -> dict:
        h1 = self._admin('POST', '/v1/os-hosts', {
            'name': 'h1', 'vcpus': 8, 'memory_mb': 8192, 'local_gb': 100,
            'rack': 'r1', 'gpu': 'true',
            'zqxcap_alpha': 'zqxval-alpha-1',
            'zqxcap_beta': 'zqxval-beta-1'})['host']
        h2 = self._admin('POST', '/v1/os-hosts', {
            'name': 'h2', 'vcpus': 4, 'rack': 'r2',
            'zqxcap_alpha': 'zqxval-alpha-2'})['host']
        # One through each route that sets the flag.
        self._admin('PATCH', '/v1/os-hosts/properties/zqxcap_alpha',
                    {'private': True})
        self._admin('PATCH', '/v1/physical:host/properties/zqxcap_beta',
                    {'private': True})
        # A value set after the flag keeps the flag.
        self._admin('PUT', '/v1/os-hosts/%s' % h2['id'],
                    {'zqxcap_beta': 'zqxval-beta-2'})
        fip = self._admin('POST', '/v1/floatingips', {
            'floating_network_id': 'net-1',
            'floating_ip_address': '10.0.0.1'})['floatingip']
        # The catalog: a public namespace for the public names and a
        # private one (the admin's) documenting the private names.
        self._admin('POST', '/v2/metadefs/namespaces', {
            'namespace': 'HostPublic', 'visibility': 'public',
            'resource_type_associations': [{'name': 'physical:host'}],
            'properties': {'rack': {'title': 'Rack', 'type': 'string',
                                    'operators': ['<in>']}},
            'objects': [{'name': 'placement', 'properties': {
                'rack': {'title': 'Rack', 'type': 'string'}}}],
            'tags': [{'name': 'racked'}]})
        self._admin('POST', '/v2/metadefs/namespaces', {
            'namespace': 'HostSecret', 'visibility': 'private',
            'resource_type_associations': [{'name': 'physical:host'}],
            'properties': {'zqxcap_alpha': {
                'title': 'zqxcap alpha', 'type': 'string',
                'enum': ['zqxval-alpha-1', 'zqxval-alpha-2']}},
            'objects': [{'name': 'zqxcap_obj', 'properties': {
                'zqxcap_beta': {'title': 'B', 'type': 'string'}}}],
            'tags': [{'name': 'zqxcap_tag'}]})
        # The admin's own lease names the private capabilities.
        admin_lease = self._admin('POST', '/v1/leases', {
            'name': 'admin-lease', 'start_date': _date(200),
            'end_date': _date(260), 'events': [], 'reservations': [{
                'resource_type': 'physical:host', 'min': 1, 'max': 1,
                'hypervisor_properties': '',
                'resource_properties':
                    '["==", "$zqxcap_alpha", "zqxval-alpha-1"]'}]})['lease']
        # The user's leases, on public properties.
        leases = []
        for name, reservation in (
                ('host-lease', {
                    'resource_type': 'physical:host', 'min': 1, 'max': 1,
                    'hypervisor_properties': '[">=", "$vcpus", "4"]',
                    'resource_properties': '["==", "$rack", "r1"]'}),
                ('fip-lease', {
                    'resource_type': 'virtual:floatingip',
                    'network_id': 'net-1', 'amount': 1})):
            resp = self._user('POST', '/v1/leases', {
                'name': name, 'start_date': _date(60),
                'end_date': _date(120), 'events': [],
                'reservations': [reservation]})
            self.assertEqual(201, resp.status, resp.text)
            self.assertNoLeak('POST', '/v1/leases', resp)
            leases.append(resp.json()['lease'])
        providers = self._admin(
            'GET', '/placement/resource_providers',
            headers={'OpenStack-API-Version': 'placement latest'}
        )['resource_providers']
        lease_ids = [lease['id'] for lease in leases]
        return {
            'lease_id': lease_ids + [admin_lease['id'], 'no-such-lease'],
            'host_id': [h1['id'], h2['id'], 'h1', '999999'],
            'floatingip_id': [fip['id'], 'no-such-fip'],
            'property': ['rack', 'gpu', 'vcpus', 'nosuchprop'],
            'resource_type': ['physical:host', 'virtual:floatingip',
                              'nosuch:type'],
            'uuid': [p['uuid'] for p in providers] + [
                '00000000-0000-4000-8000-000000000000'],
            'resource_class': ['VCPU', 'MEMORY_MB', 'DISK_GB'],
            'name': ['rack', 'placement', 'racked', 'physical:host',
                     'namespace', 'properties', 'HW_CPU_X86_AVX', 'VCPU',
                     'nosuch'],
            'consumer_uuid': lease_ids + [admin_lease['id']] + [
                r['id'] for lease in leases for r in lease['reservations']],
            'namespace': ['HostPublic', 'HostSecret', 'NoSuchNS'],
            'reservation_id': [r['id'] for lease in leases
                               for r in lease['reservations']],
        }

    def assertNoLeak(self, method, path, resp):
        headers = '\n'.join('%s: %s' % item for item in resp.headers.items())
        found = LEAK.search(resp.text) or LEAK.search(headers)
        self.assertIsNone(found, 'private capability in %s %s -> %s: %s\n%s'
                          % (method, path, resp.status, resp.text[:2000],
                             headers))

    def _paths(self, template: str) -> list:
        values = api_routes.path_values(template, self.ids)
        names = list(values)
        choices = [values[name] or ['x'] for name in names]
        return [template.format(**dict(zip(names, combo)))
                for combo in itertools.product(*choices)]

    QUERIES = {
        '/v1/os-hosts/properties': [
            '', '?detail=true', '?detail=True&all=True', '?all=true',
            '?detail=maybe'],
        '/v1/{resource_type}/properties': [
            '', '?detail=true', '?detail=false', '?all=true', '?bad=1'],
        '/v1/os-hosts/allocations': ['', '?lease_id={lease}',
                                     '?reservation_id={reservation}'],
        '/v1/os-hosts/{host_id}/allocation': ['', '?lease_id={lease}'],
        '/v1/floatingips/allocations': ['', '?lease_id={lease}',
                                        '?reservation_id={reservation}'],
        '/v1/floatingips/{floatingip_id}/allocation': [
            '', '?lease_id={lease}'],
        '/v1/os-hosts/availability': [
            '', '?start={start}&end={end}',
            '?start={start}&end={end}&count=2&duration=30',
            '?start={start}&end={end}&resource_properties='
            '%5B%22%3D%3D%22%2C%22%24rack%22%2C%22r1%22%5D',
            '?start={start}&end={end}&hypervisor_properties='
            '%5B%22%3E%3D%22%2C%22%24vcpus%22%2C%224%22%5D',
            '?start={start}&end={end}&traits=CUSTOM_X'],
        '/v1/os-hosts/calendar': [
            '', '?start={start}&end={end}', '?start={start}&end={end}&limit=1',
            '?start={start}&end={end}&limit=1&marker=h1'],
        '/v1/floatingips/calendar': [
            '', '?start={start}&end={end}',
            '?start={start}&end={end}&limit=1'],
        '/placement/allocation_candidates': [
            '?resources=VCPU:1', '?resources=VCPU:1&required=CUSTOM_X',
            '?resources=NOPE:1', ''],
        '/placement/resource_providers': [
            '', '?name=h1', '?resources=VCPU:1', '?required=HW_CPU_X86_AVX'],
        '/placement/usages': ['?project_id=demo', '?project_id=admin', ''],
        '/placement/traits': ['', '?name=startswith:CUSTOM', '?associated=1'],
        '/v2/metadefs/namespaces': [
            '', '?resource_types=physical:host', '?visibility=private',
            '?limit=1', '?limit=bad'],
        '/v2/metadefs/namespaces/{namespace}': [
            '', '?resource_type=physical:host'],
    }

    def _requests(self) -> list:
        """(method, path, body) for every route, GETs first."""
        routes = api_routes.ordered(api_routes.v1_routes()
                                    + api_routes.placement_routes()
                                    + api_routes.metadefs_routes())
        lease, reservation = self.ids['lease_id'][0], self.ids[
            'reservation_id'][0]
        start, end = self.window
        out = []
        for method, template in routes:
            body_factory = api_routes.VALID_BODIES.get((method, template))
            body = (api_routes.filled(body_factory(), self.ids)
                    if body_factory else None)
            for query in self.QUERIES.get(template, ['']):
                query = query.format(lease=lease, reservation=reservation,
                                     start=start, end=end)
                for path in self._paths(template):
                    out.append((method, path + query, body))
            if method == 'GET':
                # The same paths with the methods they do not allow.
                for path in self._paths(template)[:2]:
                    out.append(('PATCH', path, {'private': False}))
        return out

    def _scan(self) -> dict:
        statuses = {}
        for method, path, body in self._requests():
            resp = self._user(method, path, body)
            self.assertLess(resp.status, 500, '%s %s: %s'
                            % (method, path, resp.text))
            self.assertNoLeak(method, path, resp)
            statuses[(method, path)] = resp.status
        return statuses

    def _public_visible(self):
        """Under the open policy the public data does reach the user, so
        the scan is not vacuously clean."""
        host = self._user('GET', '/v1/os-hosts/%s' % self.ids['host_id'][0])
        self.assertEqual(200, host.status, host.text)
        self.assertEqual('r1', host.json()['host']['rack'])
        listed = self._user('GET', '/v1/physical:host/properties?detail=true')
        self.assertEqual(200, listed.status, listed.text)
        self.assertLessEqual({'gpu', 'rack'},
                             {p['property'] for p in listed.json()})
        # Admin sees the private ones: the data is there to leak.
        admin = self.request('GET', '/v1/os-hosts/%s' % self.ids['host_id'][0])
        self.assertEqual('zqxval-alpha-1',
                         admin.json()['host']['zqxcap_alpha'])

    def test_default_policy(self):
        statuses = self._scan()
        # The user's own lease is readable; hosts are not.
        self.assertEqual(200, statuses[
            ('GET', '/v1/leases/%s' % self.ids['lease_id'][0])])
        self.assertEqual(403, statuses[('GET', '/v1/os-hosts')])
        # The calendar and availability are the user's too: the scan read
        # them (and the hosts with private capabilities in them).
        window = '?start=%s&end=%s' % self.window
        for path in ('/v1/os-hosts/calendar', '/v1/floatingips/calendar',
                     '/v1/os-hosts/availability'):
            self.assertEqual(200, statuses[('GET', path + window)], path)

    def test_open_read_policy(self):
        self._policy(open_read_policy())
        self._public_visible()
        statuses = self._scan()
        ok = sorted(key for key, status in statuses.items() if status == 200)
        for expected in (
                ('GET', '/v1/os-hosts'),
                ('GET', '/v1/os-hosts/%s' % self.ids['host_id'][0]),
                ('GET', '/v1/os-hosts/properties?detail=true'),
                ('GET', '/v1/physical:host/properties?detail=true'),
                ('GET', '/v1/os-hosts/properties/rack'),
                ('GET', '/v1/os-hosts/allocations'),
                ('GET', '/v1/leases'),
                ('GET', '/placement/resource_providers'),
                ('GET', '/v2/metadefs/namespaces'),
                ('GET', '/v2/metadefs/namespaces/HostPublic')):
            self.assertIn(expected, ok)
        # A private property by name: 403, its name not repeated.
        for path in ('/v1/os-hosts/properties/zqxcap_alpha',
                     '/v1/physical:host/properties/zqxcap_beta'):
            resp = self._user('GET', path)
            self.assertEqual(403, resp.status, resp.text)
            self.assertNoLeak('GET', path, resp)

    def test_probing_a_private_name_answers_as_an_unknown_one(self):
        """A lease create or update, or an availability query, naming a
        private capability gets the answer an unknown name gets: the
        user learns neither that the name exists nor whether a value
        matched."""
        self._policy(open_read_policy())
        lease_id = self.ids['lease_id'][0]
        reservation_id = self.ids['reservation_id'][0]

        def create(expr: str):
            return self._user('POST', '/v1/leases', {
                'name': 'probe', 'start_date': _date(300),
                'end_date': _date(360), 'events': [], 'reservations': [{
                    'resource_type': 'physical:host', 'min': 1, 'max': 1,
                    'hypervisor_properties': '',
                    'resource_properties': expr}]})

        def update(expr: str):
            return self._user('PUT', '/v1/leases/%s' % lease_id, {
                'reservations': [{'id': reservation_id,
                                  'resource_properties': expr}]})

        def available(expr: str):
            return self._user(
                'GET', '/v1/os-hosts/availability?start=%s&end=%s'
                '&resource_properties=%s' % (self.window + (
                    urllib.parse.quote(expr, safe=''),)))

        probes = 0
        for private, value in (('zqxcap_alpha', 'zqxval-alpha-1'),
                               ('zqxcap_alpha', 'wrong-value'),
                               ('zqxcap_beta', 'zqxval-beta-1')):
            for expr in ('["==", "$%s", "%s"]', '["!=", "$%s", "%s"]',
                         '["<in>", "$%s", "%s"]',
                         '["and", ["==", "$rack", "r1"], ["==", "$%s", '
                         '"%s"]]', '["not", ["==", "$%s", "%s"]]'):
                for send in (create, update, available):
                    named = send(expr % (private, value))
                    unknown = send(expr % ('nosuchcap', value))
                    self.assertLess(unknown.status, 500, unknown.text)
                    self.assertNoLeak('PROBE', expr, unknown)
                    self.assertNotIn(named.status, (200, 201), named.text)
                    self.assertEqual(
                        (unknown.status, unknown.text),
                        (named.status, named.text.replace(private,
                                                          'nosuchcap')),
                        expr % (private, value))
                    probes += 1
        self.assertEqual(45, probes)
        # The user's lease did not change.
        shown = self._user('GET', '/v1/leases/%s' % lease_id).json()
        self.assertEqual('["==", "$rack", "r1"]', shown['lease'][
            'reservations'][0]['resource_properties'])
