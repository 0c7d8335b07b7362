"""The api-ref's examples are real: each sample is what the API answers.

``api-ref/source/samples/<family>/<name>-req.json`` is the body a step
sends and ``<name>-resp.json`` the body it must get back. The steps below
run in order against one service in process (API, manager over fake://,
SQLite), because later steps use what earlier ones made; a step whose
response has no body (204, ...) has no ``-resp.json``.

A response matches its sample when both are the same JSON, with one
exception for values that change from run to run. The placeholder
convention is by key: under a key in ``VOLATILE_KEYS`` (``id``,
``lease_id``, ``resource_id``, ``created_at``, ``updated_at``,
``request_id``) the sample
keeps the value of the run that wrote it, as a realistic example, and only
its presence and whether it is null are compared. Everything else (host
ids, placement generations, provider and consumer UUIDs, lease dates) is
made deterministic by the requests themselves. A step marked
``partial_lists`` lets the response's lists hold more items than the
sample shows (the standard resource classes grow with os-resource-classes),
so its sample may show a few of them.

After a deliberate API change, rewrite the response samples with
``python tools/regenerate_api_samples.py`` and review the diff.
"""

import dataclasses
import json
import os
import re

from blazar_ext.tests import base

SAMPLES = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                       'api-ref', 'source', 'samples')
VOLATILE_KEYS = frozenset(['id', 'lease_id', 'resource_id', 'created_at',
                           'updated_at', 'request_id'])

# Fixed UUIDs so that the placement samples are stable.
RP = '4e8e5957-649f-477b-9e5b-f1f75b21c03c'
RP_CHILD = '9a0b7bd2-4ab6-4a26-a1cf-bd3b7e6c1d57'
AGG = '42896e0d-205d-4fe3-bd1e-100924931787'
CONSUMER = '8e9bb5d2-8f50-4ec8-9a4c-5b6a2a1f1e3c'
CONSUMER_2 = 'a3a0e4c1-7b0f-4b62-9c79-6d3b1c39cc11'
PROJECT = '6e3b5a0f2c1d4b8e9f7a6c5d4e3b2a10'
USER = '1f0e2d3c4b5a69788796a5b4c3d2e1f0'
MISSING = '00000000-0000-4000-8000-000000000000'

PLACEMENT = {'OpenStack-API-Version': 'placement 1.39'}


@dataclasses.dataclass
class Step:
    """One request; ``name`` is its sample's path under samples/."""

    name: str
    method: str
    path: str
    status: int
    headers: dict = dataclasses.field(default_factory=dict)
    # {variable: key path in the response}; later paths use {variable}.
    save: dict = dataclasses.field(default_factory=dict)
    # The response's lists may hold more items than the sample's, which
    # must appear among them in the same order: for lists that grow with
    # a dependency (the standard resource classes of os-resource-classes).
    partial_lists: bool = False


def P(name, method, path, status, **kwargs):
    """A placement step at the latest microversion unless told."""
    headers = dict(PLACEMENT)
    headers.update(kwargs.pop('headers', {}))
    return Step('placement/' + name, method, '/placement' + path, status,
                headers=headers, **kwargs)


def V1(name, method, path, status, **kwargs):
    return Step('v1/' + name, method, path, status, **kwargs)


def M(name, method, path, status, **kwargs):
    return Step('metadefs/' + name, method, path, status, **kwargs)


_RPS = '/resource_providers/%s' % RP
_NS = '/v2/metadefs/namespaces/OS::Reservation::Host'

STEPS = [
    # The reservation API (Blazar v1).
    V1('versions', 'GET', '/', 300),
    V1('version-v1', 'GET', '/v1', 200),
    V1('host-create', 'POST', '/v1/os-hosts', 201,
       save={'host_id': 'host.id'}),
    V1('hosts-list', 'GET', '/v1/os-hosts', 200),
    V1('host-show', 'GET', '/v1/os-hosts/{host_id}', 200),
    V1('host-update', 'PUT', '/v1/os-hosts/{host_id}', 200),
    V1('properties-list', 'GET',
       '/v1/physical:host/properties?detail=true&all=true', 200),
    V1('property-update', 'PATCH', '/v1/physical:host/properties/gpu',
       204),
    V1('property-show', 'GET', '/v1/physical:host/properties/gpu', 200),
    V1('host-property-update', 'PATCH', '/v1/os-hosts/properties/nic_gbps',
       200),
    V1('host-properties-list', 'GET', '/v1/os-hosts/properties?detail=true',
       200),
    V1('host-property-show', 'GET', '/v1/os-hosts/properties/gpu', 200),
    V1('floatingip-create', 'POST', '/v1/floatingips', 201,
       save={'fip_id': 'floatingip.id'}),
    V1('floatingips-list', 'GET', '/v1/floatingips', 200),
    V1('floatingip-show', 'GET', '/v1/floatingips/{fip_id}', 200),
    V1('lease-create', 'POST', '/v1/leases', 201,
       save={'lease_id': 'lease.id'}),
    V1('leases-list', 'GET', '/v1/leases', 200),
    V1('lease-show', 'GET', '/v1/leases/{lease_id}', 200),
    V1('lease-update', 'PUT', '/v1/leases/{lease_id}', 200),
    V1('lease-plan', 'POST', '/v1/leases/plan', 200),
    V1('lease-extension', 'GET', '/v1/leases/{lease_id}/extension', 200),
    V1('host-allocations-list', 'GET', '/v1/os-hosts/allocations', 200),
    V1('host-availability', 'GET',
       '/v1/os-hosts/availability?start=2099-03-01+00:00'
       '&end=2099-03-15+00:00&count=1&duration=1440'
       '&resource_properties=%5B%22%3D%3D%22%2C+%22%24gpu%22%2C+%22true%22%5D',
       200),
    V1('host-allocation-show', 'GET', '/v1/os-hosts/{host_id}/allocation',
       200),
    V1('lease-create-flexible', 'POST', '/v1/leases', 201,
       save={'flexible_id': 'lease.id'}),
    V1('lease-delete-flexible', 'DELETE', '/v1/leases/{flexible_id}', 204),
    V1('lease-show-not-found', 'GET', '/v1/leases/%s' % MISSING, 404),
    V1('host-create-invalid', 'POST', '/v1/os-hosts', 400),
    V1('lease-delete', 'DELETE', '/v1/leases/{lease_id}', 204),
    V1('floatingip-delete', 'DELETE', '/v1/floatingips/{fip_id}', 204),
    V1('host-delete', 'DELETE', '/v1/os-hosts/{host_id}', 204),

    # The placement-compatible API.
    P('root', 'GET', '/', 200, headers={'OpenStack-API-Version': ''}),
    P('resource-provider-create', 'POST', '/resource_providers', 200),
    P('resource-provider-create-child', 'POST', '/resource_providers', 200),
    P('resource-providers-list', 'GET', '/resource_providers', 200),
    P('resource-provider-show', 'GET', _RPS, 200),
    P('resource-provider-update', 'PUT', _RPS, 200),
    P('resource-class-create', 'POST', '/resource_classes', 201),
    P('resource-class-update', 'PUT', '/resource_classes/CUSTOM_FPGA', 201),
    P('resource-classes-list', 'GET', '/resource_classes', 200,
      partial_lists=True),
    P('resource-class-show', 'GET', '/resource_classes/CUSTOM_GPU', 200),
    P('resource-class-delete', 'DELETE', '/resource_classes/CUSTOM_FPGA',
      204),
    P('inventories-update', 'PUT', _RPS + '/inventories', 200),
    P('inventory-create', 'POST', _RPS + '/inventories', 201),
    P('inventories-list', 'GET', _RPS + '/inventories', 200),
    P('inventory-show', 'GET', _RPS + '/inventories/DISK_GB', 200),
    P('inventory-update', 'PUT', _RPS + '/inventories/DISK_GB', 200),
    P('inventory-update-conflict', 'PUT', _RPS + '/inventories/DISK_GB',
      409),
    P('inventory-delete', 'DELETE', _RPS + '/inventories/DISK_GB', 204),
    P('trait-create', 'PUT', '/traits/CUSTOM_RACK_A', 201),
    P('traits-list', 'GET', '/traits?name=startswith:CUSTOM_', 200),
    P('trait-show', 'GET', '/traits/CUSTOM_RACK_A', 204),
    P('resource-provider-traits-update', 'PUT', _RPS + '/traits', 200),
    P('resource-provider-traits-list', 'GET', _RPS + '/traits', 200),
    P('resource-provider-aggregates-update', 'PUT', _RPS + '/aggregates',
      200),
    P('resource-provider-aggregates-list', 'GET', _RPS + '/aggregates', 200),
    P('allocation-update', 'PUT', '/allocations/%s' % CONSUMER, 204),
    P('allocations-post', 'POST', '/allocations', 204),
    P('allocation-show', 'GET', '/allocations/%s' % CONSUMER, 200),
    P('resource-provider-allocations-list', 'GET', _RPS + '/allocations',
      200),
    P('resource-provider-usages', 'GET', _RPS + '/usages', 200),
    P('usages', 'GET', '/usages?project_id=%s' % PROJECT, 200),
    P('allocation-candidates', 'GET',
      '/allocation_candidates?resources=VCPU:2,MEMORY_MB:1024'
      '&required=CUSTOM_RACK_A', 200),
    P('resource-provider-show-not-found', 'GET',
      '/resource_providers/%s' % MISSING, 404),
    P('allocation-delete', 'DELETE', '/allocations/%s' % CONSUMER, 204),
    P('allocation-delete-2', 'DELETE', '/allocations/%s' % CONSUMER_2, 204),
    P('resource-provider-traits-delete', 'DELETE', _RPS + '/traits', 204),
    P('trait-delete', 'DELETE', '/traits/CUSTOM_RACK_A', 204),
    P('inventories-delete', 'DELETE', _RPS + '/inventories', 204),
    P('resource-provider-delete-child', 'DELETE',
      '/resource_providers/%s' % RP_CHILD, 204),
    P('resource-provider-delete', 'DELETE', _RPS, 204),

    # The metadefs-compatible API (Glance v2).
    M('versions', 'GET', '/versions', 200),
    M('schema-tag', 'GET', '/v2/schemas/metadefs/tag', 200),
    M('namespace-create', 'POST', '/v2/metadefs/namespaces', 201),
    M('namespaces-list', 'GET', '/v2/metadefs/namespaces', 200),
    M('namespace-update', 'PUT', _NS, 200),
    M('property-create', 'POST', _NS + '/properties', 201),
    M('properties-list', 'GET', _NS + '/properties', 200),
    M('property-show', 'GET', _NS + '/properties/gpu_model', 200),
    M('property-show-prefixed', 'GET',
      _NS + '/properties/hw:gpu_model?resource_type=physical:host', 200),
    M('property-update', 'PUT', _NS + '/properties/gpu_model', 200),
    M('object-create', 'POST', _NS + '/objects', 201),
    M('objects-list', 'GET', _NS + '/objects', 200),
    M('object-show', 'GET', _NS + '/objects/Rack', 200),
    M('object-update', 'PUT', _NS + '/objects/Rack', 200),
    M('tags-create', 'POST', _NS + '/tags', 201),
    M('tag-create', 'POST', _NS + '/tags/low-latency', 201),
    M('tags-list', 'GET', _NS + '/tags', 200),
    M('tag-show', 'GET', _NS + '/tags/low-latency', 200),
    M('tag-update', 'PUT', _NS + '/tags/low-latency', 200),
    M('resource-type-associate', 'POST', _NS + '/resource_types', 201),
    M('resource-types-list', 'GET', '/v2/metadefs/resource_types', 200),
    M('resource-type-associations-list', 'GET', _NS + '/resource_types',
      200),
    M('namespace-show', 'GET', _NS, 200),
    M('namespace-show-not-found', 'GET',
      '/v2/metadefs/namespaces/OS::Missing', 404),
    M('resource-type-deassociate', 'DELETE',
      _NS + '/resource_types/virtual:floatingip', 204),
    M('tag-delete', 'DELETE', _NS + '/tags/ultra-low-latency', 204),
    M('tags-delete', 'DELETE', _NS + '/tags', 204),
    M('object-delete', 'DELETE', _NS + '/objects/Rack', 204),
    M('objects-delete', 'DELETE', _NS + '/objects', 204),
    M('property-delete', 'DELETE', _NS + '/properties/gpu_model', 204),
    M('properties-delete', 'DELETE', _NS + '/properties', 204),
    M('namespace-delete', 'DELETE', _NS, 204),
]


def sample_path(name: str, kind: str) -> str:
    return os.path.normpath(os.path.join(SAMPLES, '%s-%s.json' % (name,
                                                                  kind)))


def _load(path: str):
    with open(path) as f:
        return json.load(f)


def _lookup(body, dotted: str):
    for key in dotted.split('.'):
        body = body[key]
    return body


def _subsequence(expected: list, actual: list, where: str) -> list:
    """Each expected item matches a later actual item than the last."""
    position = 0
    for index, item in enumerate(expected):
        while position < len(actual) and differences(
                item, actual[position], partial=True):
            position += 1
        if position == len(actual):
            return ['%s[%d]: %r not in the response (in order)'
                    % (where, index, item)]
        position += 1
    return []


def differences(expected, actual, where: str = '',
                partial: bool = False) -> list:
    """Where ``actual`` departs from ``expected`` (see VOLATILE_KEYS)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for key in sorted(set(expected) | set(actual)):
            here = '%s/%s' % (where, key)
            if key not in actual:
                out.append('%s: missing from the response' % here)
            elif key not in expected:
                out.append('%s: not in the sample' % here)
            elif key in VOLATILE_KEYS:
                if (expected[key] is None) != (actual[key] is None):
                    out.append('%s: %r, sample has %r'
                               % (here, actual[key], expected[key]))
            else:
                out.extend(differences(expected[key], actual[key], here,
                                       partial))
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if partial:
            return _subsequence(expected, actual, where or '/')
        if len(expected) != len(actual):
            return ['%s: %d items, sample has %d'
                    % (where or '/', len(actual), len(expected))]
        out = []
        for index, (exp, act) in enumerate(zip(expected, actual)):
            out.extend(differences(exp, act, '%s[%d]' % (where, index),
                                   partial))
        return out
    if type(expected) is not type(actual) or expected != actual:
        return ['%s: %r, sample has %r' % (where or '/', actual, expected)]
    return []


def run_steps(api, write: bool = False) -> list:
    """Send every step; return the mismatches (or write the samples)."""
    saved = {}
    problems = []
    for step in STEPS:
        path = re.sub(r'\{(\w+)\}', lambda m: saved[m.group(1)], step.path)
        req_file = sample_path(step.name, 'req')
        body = _load(req_file) if os.path.exists(req_file) else None
        resp = api.request(step.method, path, body=body,
                           headers=step.headers)
        if resp.status != step.status:
            problems.append('%s: %s %s answered %d, expected %d: %s' % (
                step.name, step.method, path, resp.status, step.status,
                resp.text))
            continue
        resp_file = sample_path(step.name, 'resp')
        got = resp.json() if resp.body else None
        for variable, dotted in step.save.items():
            saved[variable] = str(_lookup(got, dotted))
        if write and got is not None and os.path.exists(resp_file) and \
                not differences(_load(resp_file), got,
                                partial=step.partial_lists):
            continue  # Still true: keep it (and its example ids, dates).
        if write:
            if got is None:
                if os.path.exists(resp_file):
                    os.unlink(resp_file)
                continue
            os.makedirs(os.path.dirname(resp_file), exist_ok=True)
            with open(resp_file, 'w') as f:
                json.dump(got, f, indent=4, sort_keys=True)
                f.write('\n')
            continue
        if got is None:
            if os.path.exists(resp_file):
                problems.append('%s: empty response, but %s exists'
                                % (step.name, resp_file))
            continue
        if not os.path.exists(resp_file):
            problems.append('%s: no sample %s for %s'
                            % (step.name, resp_file, resp.text))
            continue
        problems.extend('%s: %s' % (step.name, d) for d in differences(
            _load(resp_file), got, partial=step.partial_lists))
    return problems


class TestAPISamples(base.APITestCase):

    def test_samples_match_responses(self):
        problems = run_steps(self.api)
        self.assertEqual([], problems, '\n'.join(problems))

    def test_every_sample_is_checked(self):
        known = set()
        for step in STEPS:
            known.add(sample_path(step.name, 'req'))
            known.add(sample_path(step.name, 'resp'))
        on_disk = set()
        for root, _dirs, files in os.walk(SAMPLES):
            on_disk.update(os.path.normpath(os.path.join(root, f))
                           for f in files)
        self.assertTrue(on_disk)
        self.assertEqual(set(), on_disk - known)

    def test_every_sample_is_in_the_api_ref(self):
        source = os.path.dirname(os.path.normpath(SAMPLES))
        text = ''
        for name in os.listdir(source):
            if name.endswith(('.inc', '.rst')):
                with open(os.path.join(source, name)) as f:
                    text += f.read()
        missing = []
        for root, _dirs, files in os.walk(SAMPLES):
            for name in files:
                rel = os.path.relpath(os.path.join(root, name), source)
                if rel not in text:
                    missing.append(rel)
        self.assertEqual([], missing)

    def test_differences_ignore_only_volatile_keys(self):
        self.assertEqual([], differences(
            {'id': 'a', 'created_at': None, 'x': [1]},
            {'id': 'b', 'created_at': None, 'x': [1]}))
        self.assertEqual(2, len(differences(
            {'id': 'a', 'created_at': None, 'x': [1]},
            {'id': 'a', 'created_at': '2026', 'x': [2]})))
        self.assertEqual(1, len(differences({'n': 1}, {'n': True})))
        self.assertEqual(1, len(differences({'n': 1}, {'n': 1, 'm': 2})))

    def test_partial_lists_need_the_sample_items_in_order(self):
        self.assertEqual(1, len(differences([1, 3], [1, 2, 3])))
        self.assertEqual([], differences([1, 3], [1, 2, 3], partial=True))
        self.assertEqual(1, len(differences([3, 1], [1, 2, 3],
                                            partial=True)))
        self.assertEqual(1, len(differences([{'a': [4]}], [{'a': [1]}],
                                            partial=True)))
