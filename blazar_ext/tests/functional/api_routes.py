"""The routes of the three API families, read from their route tables
(api/v1/routes.py, api/placement/router.py, the metadefs modules' ROUTES),
a valid body for each write and a valid query for the routes that need
one, shared by the fuzzer (test_fuzz), the private-capability scan
(test_private_scan) and the bad-body and HEAD checks (test_bad_bodies),
with their seeded resources and error-shape reader (here since no test
module may import another). Path parameters in bodies and queries are
'{name}' strings that ``filled`` replaces with seeded ids."""

import datetime
import re
import uuid

from oslo_utils import importutils
from oslo_utils import timeutils
from pecan import rest
from pecan import util as pecan_util

from blazar_ext.api.metadefs import app as metadefs_app
from blazar_ext.api.placement import router as placement_router
from blazar_ext.api.v1 import properties as v1_properties
from blazar_ext.api.v1 import root as v1_root
from blazar_ext.api.v1 import routes as v1_route_table
from blazar_ext.plugins import loader

RP_UUID = '11111111-1111-4111-8111-111111111111'
RP2_UUID = '22222222-2222-4222-8222-222222222222'
CONSUMER = '33333333-3333-4333-8333-333333333333'
AGGREGATE = '44444444-4444-4444-8444-444444444444'


def date(minutes: int) -> str:
    return (timeutils.utcnow() + datetime.timedelta(minutes=minutes)
            ).strftime('%Y-%m-%d %H:%M')


# --- routes -----------------------------------------------------------------

def placement_routes() -> list:
    """Every (method, path) of the placement app's routing table."""
    return [(route.method, '/placement' + route.pattern)
            for route in placement_router.router().routes
            if route.pattern]  # '' and '/' are the same root document


def metadefs_routes() -> list:
    """Every (method, path) of the metadefs app's routing table."""
    return [(route.method, '/v2' + route.pattern)
            for route in metadefs_app.build().routes] + [
        ('GET', '/versions')]


def v1_routes() -> list:
    """Every (method, path) of the reservation API's route table
    (api/v1/routes.py) for the enabled plugins (needs configuration)."""
    return sorted({(route.method, route.pattern) for route in
                   v1_route_table.table(loader.get().routes())})


# --- what Pecan serves, to check the v1 table against ---------------------

# RestController methods: (name, HTTP method, takes the item's id).
_REST_METHODS = (('get_all', 'GET', False), ('post', 'POST', False),
                 ('get_one', 'GET', True), ('put', 'PUT', True),
                 ('patch', 'PATCH', True), ('delete', 'DELETE', True))


def _rest_routes(controller, path: str) -> list:
    """(method, path, handler function) of what a Pecan RestController
    serves at ``path``, its sub-controllers included; an item's id is
    named after the handler's argument ({lease_id}, {host_id}, {name})."""
    routes = []
    for name, method, one in _REST_METHODS:
        handler = getattr(controller, name, None)
        if handler is None or not getattr(handler, 'exposed', False):
            continue
        args = pecan_util.getargspec(handler).args[1:]
        # The item's id is the last argument (a nested controller's
        # handlers take their parent's id first); PUT /v1/rates, a put
        # without an id, replaces the collection.
        routes.append((method, '%s/{%s}' % (path, args[-1])
                       if one and args else path, handler.__func__))
    # Pecan's custom actions: POST /v1/lease-series/{series_id}/skip.
    for name, methods in getattr(controller, '_custom_actions', {}).items():
        handler = getattr(controller, name)
        args = pecan_util.getargspec(handler).args[1:]
        for method in methods:
            routes.append((method, '%s/{%s}/%s' % (path, args[-1], name)
                           if args else '%s/%s' % (path, name),
                           handler.__func__))
    for name in dir(type(controller)):
        child = getattr(controller, name, None)
        if not isinstance(child, rest.RestController):
            continue
        # A child with no get_all hangs under an item if its post takes
        # the item's id (/v1/budgets/{budget_id}/adjust).
        get_all = getattr(child, 'get_all', getattr(child, 'post', None))
        args = (pecan_util.getargspec(get_all).args[1:]
                if get_all is not None else [])
        # get_all(self, host_id): the child hangs under an item
        # (/v1/os-hosts/{host_id}/allocation); a child shared by several
        # parents names the item in ``parent_argument``.
        parent = getattr(child, 'parent_argument', None) or (
            args[0] if args else None)
        base = ('%s/{%s}/%s' % (path, parent, name) if args
                else '%s/%s' % (path, name))
        routes += _rest_routes(child, base)
    return routes


def served_v1_routes() -> list:
    """(method, path, handler function) of every route the reservation
    API's Pecan controllers serve, for the enabled plugins: read from the
    controllers themselves, not from the route table."""
    routes = [('GET', '/', v1_root.RootController.index_get),
              ('GET', '/v1', v1_root.V1Controller.index_get)]
    for name in dir(v1_root.V1Controller):
        child = getattr(v1_root.V1Controller, name)
        if isinstance(child, rest.RestController):
            routes += _rest_routes(child, '/v1/' + name)
    for segment, path in sorted(loader.get().routes().items()):
        controller = importutils.import_class(path.replace(':', '.'))()
        routes += _rest_routes(controller, '/v1/' + segment)
    # V1Controller._lookup: /v1/{resource_type}/properties.
    routes += _rest_routes(v1_properties.PropertiesController('x'),
                           '/v1/{resource_type}/properties')
    return routes


def v1_table_problems(table: list, served: list) -> list:
    """What differs between the v1 route table and what Pecan serves:
    a route served but missing from the table, one the table lists but
    nothing serves, or a route whose handler is another function."""
    listed = {(r.method, r.pattern): r.handler for r in table}
    problems = []
    for method, path, handler in served:
        if (method, path) not in listed:
            problems.append('%s %s is served but missing from the table'
                            % (method, path))
        elif listed[method, path] is not handler:
            problems.append('%s %s is served by %s, the table says %s' % (
                method, path, handler.__qualname__,
                listed[method, path].__qualname__))
    for method, path in sorted(set(listed) - {(m, p)
                                              for m, p, _h in served}):
        problems.append('%s %s is in the table but not served'
                        % (method, path))
    return problems


def template_key(template: str) -> str:
    """A path template with its parameter names dropped, to compare
    templates derived from different tables."""
    return re.sub(r'\{\w+\}', '{}', template)


# Order within a family: reads, then writes, then deletes, so the seeded
# resources are there for most routes.
ORDER = {'GET': 0, 'POST': 1, 'PUT': 2, 'PATCH': 3, 'DELETE': 4}


def ordered(routes: list) -> list:
    return sorted(routes, key=lambda r: (ORDER.get(r[0], 5), r[1]))


# --- valid bodies, for mutation ---------------------------------------------

def lease_body() -> dict:
    return {'name': 'fuzz-lease', 'start_date': date(600),
            'end_date': date(660), 'events': [],
            'reservations': [
                {'resource_type': 'physical:host', 'min': 1, 'max': 1,
                 'hypervisor_properties': '[">=", "$vcpus", "2"]',
                 'resource_properties': '["==", "$rack", "r1"]',
                 'traits': 'CUSTOM_FUZZ,!HW_CPU_X86_AVX'},
                {'resource_type': 'virtual:floatingip',
                 'network_id': 'net-1', 'amount': 1,
                 'required_floatingips': ['10.0.0.1']}]}


def plan_body() -> dict:
    body = lease_body()
    del body['start_date'], body['end_date'], body['events']
    body.update(duration=3600, not_after=date(6000), limit=2)
    return body


VALID_BODIES = {
    ('POST', '/v1/leases'): lease_body,
    ('POST', '/v1/leases/plan'): plan_body,
    ('PUT', '/v1/leases/{lease_id}'): lambda: {
        'name': 'renamed', 'end_date': date(700),
        'reservations': [{'id': '{reservation_id}', 'min': 1, 'max': 2,
                          'resource_properties': '["==", "$rack", "r1"]'}]},
    ('POST', '/v1/leases/quote'): lease_body,
    ('POST', '/v1/budgets'): lambda: {
        'project_id': 'p-fuzz', 'credits': 10, 'period': 'monthly'},
    ('POST', '/v1/budgets/{budget_id}/adjust'): lambda: {
        'amount': 5, 'reason': 'fuzz'},
    ('PUT', '/v1/rates'): lambda: {'rates': [
        {'resource_type': 'physical:host',
         'properties': ['==', '$rack', 'r1'], 'credits_per_hour': 2}]},
    ('POST', '/v1/os-hosts'): lambda: {
        'name': 'fuzz-host', 'vcpus': 4, 'memory_mb': '4096',
        'local_gb': 10, 'rack': 'r2', 'gpu': True, 'cores': 8.5},
    ('PUT', '/v1/os-hosts/{host_id}'): lambda: {
        'rack': 'r9', 'gpu': None, 'cores': 1},
    ('PATCH', '/v1/os-hosts/properties/{name}'): lambda: {
        'private': False},
    ('PATCH', '/v1/{resource_type}/properties/{name}'): lambda: {
        'private': True},
    ('POST', '/v1/floatingips'): lambda: {
        'floating_network_id': 'net-1', 'floating_ip_address': '10.0.0.9',
        'subnet_id': 'sub-1'},
    ('POST', '/v1/subscriptions'): lambda: {
        'url': 'https://93.184.215.14/hook', 'events': ['lease.degraded'],
        'lead_times': [600], 'secret': 'fuzz-secret-fuzz-secret'},
    # Events none of the route tests cause: no delivery is attempted to
    # the (public, unreachable) address.
    ('PATCH', '/v1/subscriptions/{subscription_id}'): lambda: {
        'events': ['lease.degraded', 'reservation.healed']},
    ('POST', '/v1/lease-series/{series_id}/skip'): lambda: {
        'date': date(3000)[:10]},
    ('PATCH', '/v1/lease-series/{series_id}'): lambda: {
        'name': 'renamed-series', 'reservations': [{'min': 1, 'max': 1}]},
    ('POST', '/v1/os-hosts/{host_id}/maintenance'): lambda: {
        'start_date': date(6000), 'end_date': date(6060),
        'reason': 'fuzz', 'dry_run': True},
    ('PUT', '/v1/os-hosts/{host_id}/maintenance/{maintenance_id}'):
        lambda: {'end_date': date(5090), 'dry_run': True},
    ('PATCH', '/v1/os-hosts/{host_id}/maintenance/{maintenance_id}'):
        lambda: {'start_date': date(5010), 'dry_run': True},
    ('POST', '/v1/floatingips/{floatingip_id}/maintenance'): lambda: {
        'start_date': date(6000), 'end_date': date(6060),
        'reason': 'fuzz', 'dry_run': True},
    ('PUT', '/v1/floatingips/{floatingip_id}/maintenance/{maintenance_id}'):
        lambda: {'end_date': date(5090), 'dry_run': True},
    ('PATCH',
     '/v1/floatingips/{floatingip_id}/maintenance/{maintenance_id}'):
        lambda: {'start_date': date(5010), 'dry_run': True},
    ('POST', '/placement/resource_providers'): lambda: {
        'name': 'fuzz-rp', 'uuid': str(uuid.uuid4()),
        'parent_provider_uuid': RP_UUID},
    ('PUT', '/placement/resource_providers/{uuid}'): lambda: {
        'name': 'renamed-rp', 'parent_provider_uuid': None},
    ('POST', '/placement/resource_providers/{uuid}/inventories'): lambda: {
        'resource_class': 'DISK_GB', 'total': 100, 'reserved': 0,
        'min_unit': 1, 'max_unit': 100, 'step_size': 1,
        'allocation_ratio': 1.0},
    ('PUT', '/placement/resource_providers/{uuid}/inventories'): lambda: {
        'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': 8, 'allocation_ratio': 2.0},
                        'CUSTOM_FUZZ': {'total': 2}}},
    ('PUT', '/placement/resource_providers/{uuid}/inventories/'
            '{resource_class}'): lambda: {
        'resource_provider_generation': 0, 'total': 16, 'max_unit': 8},
    ('PUT', '/placement/resource_providers/{uuid}/aggregates'): lambda: {
        'aggregates': [AGGREGATE], 'resource_provider_generation': 0},
    ('PUT', '/placement/resource_providers/{uuid}/traits'): lambda: {
        'traits': ['CUSTOM_FUZZ', 'HW_CPU_X86_AVX'],
        'resource_provider_generation': 0},
    ('POST', '/placement/resource_classes'): lambda: {
        'name': 'CUSTOM_FUZZ_NEW'},
    ('PUT', '/placement/resource_classes/{name}'): lambda: {
        'name': 'CUSTOM_FUZZ_RENAMED'},
    ('POST', '/placement/allocations'): lambda: {
        CONSUMER: {'allocations': {RP_UUID: {'resources': {'VCPU': 1}}},
                   'project_id': 'p', 'user_id': 'u',
                   'consumer_generation': None,
                   'consumer_type': 'INSTANCE'}},
    ('PUT', '/placement/allocations/{consumer_uuid}'): lambda: {
        'allocations': {RP_UUID: {'resources': {'VCPU': 1}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'},
    ('POST', '/v2/metadefs/namespaces'): lambda: {
        'namespace': 'FuzzNew', 'display_name': 'Fuzz',
        'description': 'd', 'visibility': 'public', 'protected': False,
        'properties': {'p': {'title': 'P', 'type': 'string'}},
        'objects': [{'name': 'o', 'properties': {
            'q': {'title': 'Q', 'type': 'integer'}}, 'required': ['q']}],
        'tags': [{'name': 't'}],
        'resource_type_associations': [{'name': 'physical:host',
                                        'prefix': 'x_'}]},
    ('PUT', '/v2/metadefs/namespaces/{namespace}'): lambda: {
        'namespace': 'FuzzNS', 'visibility': 'private',
        'description': 'changed'},
    ('POST', '/v2/metadefs/namespaces/{namespace}/properties'): lambda: {
        'name': 'p2', 'title': 'P2', 'type': 'array',
        'items': {'type': 'string', 'enum': ['a', 'b']},
        'operators': ['<all-in>']},
    ('PUT', '/v2/metadefs/namespaces/{namespace}/properties/{name}'):
        lambda: {'name': 'p1', 'title': 'P1', 'type': 'integer',
                 'minimum': 0, 'maximum': 10},
    ('POST', '/v2/metadefs/namespaces/{namespace}/objects'): lambda: {
        'name': 'o2', 'description': 'd',
        'properties': {'q': {'title': 'Q', 'type': 'boolean'}}},
    ('PUT', '/v2/metadefs/namespaces/{namespace}/objects/{name}'): lambda: {
        'name': 'o1', 'properties': {'r': {'title': 'R',
                                           'type': 'number'}},
        'required': ['r']},
    ('POST', '/v2/metadefs/namespaces/{namespace}/tags'): lambda: {
        'tags': [{'name': 't2'}, {'name': 't3'}]},
    ('PUT', '/v2/metadefs/namespaces/{namespace}/tags'): lambda: {
        'tags': [{'name': 't4'}]},
    ('PUT', '/v2/metadefs/namespaces/{namespace}/tags/{name}'): lambda: {
        'name': 't5'},
    ('POST', '/v2/metadefs/namespaces/{namespace}/resource_types'):
        lambda: {'name': 'OS::Nova::Flavor', 'prefix': 'hw:',
                 'properties_target': 'image'},
}


# Query strings a route reads, valid against the seeded resources: the
# window routes answer 400 without start and end, so the fuzzer mutates
# these to reach the code behind the parameter checks.
VALID_QUERIES = {
    ('GET', '/v1/os-hosts/availability'): lambda: {
        'start': date(10), 'end': date(600), 'count': '1',
        'duration': '30', 'resource_properties': '["==", "$rack", "r1"]',
        'hypervisor_properties': '[">=", "$vcpus", "2"]',
        'traits': 'CUSTOM_FUZZ'},
    ('GET', '/v1/os-hosts/calendar'): lambda: {
        'start': date(0), 'end': date(600), 'limit': '10', 'marker': 'h1'},
    ('GET', '/v1/floatingips/calendar'): lambda: {
        'start': date(0), 'end': date(600), 'limit': '10',
        'marker': '10.0.0.1'},
    ('GET', '/v1/os-hosts/allocations'): lambda: {
        'lease_id': '{lease_id}'},
    ('GET', '/v1/os-hosts/{host_id}/allocation'): lambda: {
        'lease_id': '{lease_id}'},
    ('GET', '/v1/floatingips/allocations'): lambda: {
        'reservation_id': '{reservation_id}'},
    ('GET', '/v1/floatingips/{floatingip_id}/allocation'): lambda: {
        'lease_id': '{lease_id}'},
}


def path_values(template: str, ids: dict) -> dict:
    """{path parameter of ``template``: seeded values}: a v1 {name} is a
    property (the handlers' argument), elsewhere a seeded name."""
    values = {}
    for name in re.findall(r'\{(\w+)\}', template):
        key = ('property' if name == 'name' and family(template) == 'v1'
               else name)
        values[name] = ids.get(key, [])
    return values


def filled(node, ids: dict):
    """``node`` with '{name}' strings replaced by a seeded id."""
    if isinstance(node, dict):
        return {k: filled(v, ids) for k, v in node.items()}
    if isinstance(node, list):
        return [filled(v, ids) for v in node]
    if isinstance(node, str) and node[1:-1] in ids and node[0] == '{':
        return ids[node[1:-1]][0]
    return node


# --- seeded resources and the families' error shapes ----------------------

def seed(request) -> dict:
    """Real resources in every family, made through ``request`` (an
    APIFixture's request); {path parameter: [ids]} for the routes."""
    def ok(method, path, body=None, expect=(200, 201, 204), **kwargs):
        resp = request(method, path, body, **kwargs)
        if resp.status not in expect:
            raise AssertionError('%s %s: %s %s' % (
                method, path, resp.status, resp.text))
        return resp.json() if resp.body else None

    host = ok('POST', '/v1/os-hosts', {
        'name': 'h1', 'vcpus': 8, 'memory_mb': 8192, 'local_gb': 100,
        'rack': 'r1', 'gpu': 'true', 'cores': '8'})['host']
    ok('POST', '/v1/os-hosts', {'name': 'h2', 'rack': 'r2'})
    fip = ok('POST', '/v1/floatingips', {
        'floating_network_id': 'net-1',
        'floating_ip_address': '10.0.0.1'})['floatingip']
    lease = ok('POST', '/v1/leases', {
        'name': 'l1', 'start_date': date(60), 'end_date': date(120),
        'events': [], 'reservations': [
            {'resource_type': 'physical:host', 'min': 1, 'max': 1,
             'hypervisor_properties': '',
             'resource_properties': '["==", "$rack", "r1"]'}]})['lease']
    budget = ok('POST', '/v1/budgets',
                {'project_id': 'p', 'credits': 100})['budget']
    subscription = ok('POST', '/v1/subscriptions', {
        'url': 'https://93.184.215.14/hook', 'events': ['lease.degraded'],
        'secret': 'seed-secret-seed-secret'})['subscription']
    # A lease series and a maintenance window, far from the lease above.
    series = ok('POST', '/v1/leases', {
        'name': 's1', 'start_date': date(3000), 'end_date': date(3060),
        'recurrence': 'FREQ=DAILY;COUNT=2', 'reservations': [
            {'resource_type': 'physical:host', 'min': 1, 'max': 1,
             'hypervisor_properties': '', 'resource_properties': ''}]})[
        'lease']
    maintenance = ok('POST', '/v1/os-hosts/%s/maintenance' % host['id'], {
        'start_date': date(5000), 'end_date': date(5100),
        'reason': 'seeded'})['maintenance']
    fip_maintenance = ok(
        'POST', '/v1/floatingips/%s/maintenance' % fip['id'], {
            'start_date': date(5000), 'end_date': date(5100),
            'reason': 'seeded'})['maintenance']
    mv = {'OpenStack-API-Version': 'placement latest'}
    ok('POST', '/placement/resource_providers',
       {'name': 'rp1', 'uuid': RP_UUID}, headers=mv)
    ok('POST', '/placement/resource_providers',
       {'name': 'rp2', 'uuid': RP2_UUID, 'parent_provider_uuid': RP_UUID},
       headers=mv)
    ok('PUT', '/placement/resource_classes/CUSTOM_FUZZ', headers=mv,
       expect=(201, 204))
    ok('PUT', '/placement/traits/CUSTOM_FUZZ', headers=mv,
       expect=(201, 204))
    ok('PUT', '/placement/resource_providers/%s/inventories' % RP_UUID,
       {'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': 8}, 'CUSTOM_FUZZ': {'total': 4}}},
       headers=mv)
    ok('PUT', '/placement/resource_providers/%s/traits' % RP_UUID,
       {'resource_provider_generation': 1, 'traits': ['CUSTOM_FUZZ']},
       headers=mv)
    ok('PUT', '/placement/allocations/%s' % CONSUMER, {
        'allocations': {RP_UUID: {'resources': {'VCPU': 2}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'}, headers=mv)
    ok('POST', '/v2/metadefs/namespaces', {
        'namespace': 'FuzzNS', 'visibility': 'public',
        'properties': {'p1': {'title': 'P1', 'type': 'string'}},
        'objects': [{'name': 'o1', 'properties': {
            'q': {'title': 'Q', 'type': 'integer'}}}],
        'tags': [{'name': 't1'}],
        'resource_type_associations': [{'name': 'physical:host'}]})
    return {
        'lease_id': [lease['id']],
        'host_id': [host['id'], 'h1'],
        'floatingip_id': [fip['id']],
        'property': ['rack', 'gpu', 'cores'],
        'resource_type': ['physical:host', 'virtual:floatingip',
                          'os-hosts'],
        'uuid': [RP_UUID, RP2_UUID],
        'resource_class': ['VCPU', 'CUSTOM_FUZZ', 'DISK_GB'],
        'name': ['CUSTOM_FUZZ', 'VCPU', 'HW_CPU_X86_AVX', 'p1', 'o1',
                 't1', 'physical:host', 'namespace', 'properties',
                 'object', 'tags'],
        'consumer_uuid': [CONSUMER, lease['id']],
        'namespace': ['FuzzNS'],
        'reservation_id': [lease['reservations'][0]['id']],
        'budget_id': [budget['id']],
        'subscription_id': [subscription['id']],
        'series_id': [series['series_id']],
        'maintenance_id': [maintenance['id'], fip_maintenance['id']],
    }


def family(path: str) -> str:
    """'v1', 'placement' or 'metadefs': the API family of a path."""
    if path == '/placement' or path.startswith('/placement/'):
        return 'placement'
    if path.startswith('/v2') or path.startswith('/versions'):
        return 'metadefs'
    return 'v1'


def error_message(family_name: str, body) -> str | None:
    """The message of an error body in the family's shape, else None."""
    if not isinstance(body, dict):
        return None
    if family_name == 'v1':
        if (isinstance(body.get('error_code'), int)
                and isinstance(body.get('error_name'), (str, int))):
            return body.get('error_message') or None
        return None
    if family_name == 'placement':
        errors = body.get('errors')
        if not isinstance(errors, list) or not errors or not all(
                isinstance(e, dict) and isinstance(e.get('status'), int)
                and e.get('title') for e in errors):
            return None
        return errors[0].get('detail') or None
    error = body.get('error')
    if isinstance(error, dict) and isinstance(error.get('code'), int):
        return error.get('message') or None
    return None
