"""blazar_ext's v1 API side by side with upstream Blazar 18.0.0.

Both get the same requests, for every v1 route and its errors; their
answers must agree in status, keys, value types and formats (ids and
times are compared by format only), and where upstream refuses a request
(4xx) blazar_ext's message contains upstream's. A difference is allowed
only when ALLOWED lists the step, with its reason, and
doc/source/user/upstream-differences.rst lists it too. The report (how
many requests both answer alike, and every difference) is attached to
the test's result as 'differential' (and written to the file
$BLAZAR_EXT_DIFFERENTIAL_REPORT names, if set).
"""

import datetime
import os

from oslo_utils import timeutils
import testtools

from blazar_ext.tests import base
from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional.api import upstream_differential as diff
from blazar_ext.tests.functional import upstream_blazar

Step = diff.Step
DOC = os.path.join(upstream_blazar.REPO, 'doc', 'source', 'user',
                   'upstream-differences.rst')
HOST = diff.STAND_INS.HOST

# Differences allowed, each (steps, difference, reason): regular
# expressions matched against the step's name and one line of the report.
# The name in each reason (between ``) is in DOC, with the same reason.
ALLOWED = [
    (r'^version v1/?$', r'^status: upstream 404, blazar_ext 200',
     '``GET /v1``: blazar_ext answers the v1 version document '
     '(keystoneauth may read it); upstream 404s'),
    (r'', r'^upstream answers 500, blazar_ext 4\d\d \(a client error\)$',
     '``upstream 500``: a refusal upstream lets escape as a 500 is a 4xx '
     'here'),
    (r'^host create without name$', r'^status: upstream 403, blazar_ext 400',
     '``host without name``: upstream answers 403 (its InvalidHost is a '
     'NotAuthorized); a malformed request is a 400 here'),
    (r'', r"extra key '(disabled|reservable_reason|reservable|traits|"
          r"property|values|private)'$",
     "``extra keys``: blazar_ext's extensions beside upstream's keys"),
    (r'', r'\.trust_id: upstream "<uuid>", blazar_ext null$',
     '``trust_id``: blazar_ext makes no Keystone trusts'),
    (r'^fip ', r'\.subnet_id: upstream "<str>", blazar_ext null$',
     '``subnet_id``: without Neutron, the subnet is known only when given '
     'at registration'),
    (r'', r'\.updated_at: upstream (null, blazar_ext "<[^>]*>"|"<[^>]*>", '
          r'blazar_ext null)$',
     '``updated_at``: set when a row is written again after its creation, '
     'which happens at different steps on each side'),
    (r'^lease (rename|move|extend active)$',
     r'\.lease\.status: upstream "UPDATING", blazar_ext "(PENDING|ACTIVE)"$',
     '``UPDATING``: upstream answers an update with the lease still in '
     'its transitional status'),
]


def _date(minutes: int) -> str:
    return (timeutils.utcnow() + datetime.timedelta(minutes=minutes)
            ).strftime(base.FMT)


def host_reservation(**values) -> dict:
    return base.host_reservation(**values)


def fip_reservation(**values) -> dict:
    spec = {'resource_type': 'virtual:floatingip', 'network_id': 'net-1',
            'amount': 1}
    spec.update(values)
    return spec


def lease(name: str, start, end, *reservations, **extra) -> dict:
    body = {'name': name, 'start_date': start, 'end_date': end,
            'reservations': list(reservations), 'events': []}
    body.update(extra)
    return body


def steps() -> list:
    """Every v1 route, in an order that builds what later steps use."""
    host = dict(HOST, name='h1', gpu='a100', rack='r1')
    start, end = _date(60), _date(120)
    return [
        # Versions and routing.
        Step('versions', 'GET', '/'),
        Step('version v1', 'GET', '/v1'),
        Step('version v1/', 'GET', '/v1/'),
        Step('versions POST', 'POST', '/', {}),
        Step('unknown path', 'GET', '/v1/nothing'),
        Step('unknown root path', 'GET', '/nothing'),
        Step('leases DELETE without id', 'DELETE', '/v1/leases'),
        Step('hosts PUT without id', 'PUT', '/v1/os-hosts', {}),
        Step('lease PATCH', 'PATCH', '/v1/leases/x', {}),
        # Hosts.
        Step('host create', 'POST', '/v1/os-hosts', host,
             bind={'h1': ('host', 'id')}),
        Step('host create 2', 'POST', '/v1/os-hosts',
             dict(HOST, name='h2', gpu='v100'), bind={'h2': ('host', 'id')}),
        Step('host create duplicate', 'POST', '/v1/os-hosts', host),
        Step('host create without name', 'POST', '/v1/os-hosts',
             {'gpu': 'x'}),
        Step('host create long capability', 'POST', '/v1/os-hosts',
             {'name': 'h3', 'k' * 65: 'v'}),
        Step('host list', 'GET', '/v1/os-hosts'),
        Step('host show', 'GET', '/v1/os-hosts/{h1}'),
        Step('host show missing', 'GET', '/v1/os-hosts/999999'),
        Step('host update', 'PUT', '/v1/os-hosts/{h1}', {'gpu': 'h100'}),
        Step('host update missing', 'PUT', '/v1/os-hosts/999999',
             {'gpu': 'h100'}),
        Step('host list as member', 'GET', '/v1/os-hosts', who='member'),
        Step('host create as member', 'POST', '/v1/os-hosts',
             dict(host, name='h9'), who='member'),
        # Properties.
        Step('properties', 'GET', '/v1/os-hosts/properties'),
        Step('properties detail', 'GET',
             '/v1/os-hosts/properties?detail=true'),
        Step('properties all', 'GET', '/v1/os-hosts/properties?all=true'),
        Step('property private', 'PATCH', '/v1/os-hosts/properties/rack',
             {'private': True}),
        Step('properties after private', 'GET',
             '/v1/os-hosts/properties?detail=true'),
        Step('property missing', 'PATCH', '/v1/os-hosts/properties/nope',
             {'private': True}),
        # Floating IPs.
        Step('fip create', 'POST', '/v1/floatingips',
             {'floating_network_id': 'net-1',
              'floating_ip_address': '172.24.4.200'},
             bind={'f1': ('floatingip', 'id')}),
        Step('fip create 2', 'POST', '/v1/floatingips',
             {'floating_network_id': 'net-1',
              'floating_ip_address': '172.24.4.201'},
             bind={'f2': ('floatingip', 'id')}),
        Step('fip create duplicate', 'POST', '/v1/floatingips',
             {'floating_network_id': 'net-1',
              'floating_ip_address': '172.24.4.200'}),
        Step('fip create without address', 'POST', '/v1/floatingips',
             {'floating_network_id': 'net-1'}),
        Step('fip list', 'GET', '/v1/floatingips'),
        Step('fip show', 'GET', '/v1/floatingips/{f1}'),
        Step('fip show missing', 'GET', '/v1/floatingips/nope'),
        Step('fip delete missing', 'DELETE', '/v1/floatingips/nope'),
        # Leases.
        Step('lease create host', 'POST', '/v1/leases',
             lease('l-host', start, end, host_reservation(
                 resource_properties='["==", "$gpu", "h100"]')),
             bind={'l1': ('lease', 'id')}),
        Step('lease create fip', 'POST', '/v1/leases',
             lease('l-fip', start, end, fip_reservation(
                 required_floatingips=['172.24.4.200'])),
             bind={'l2': ('lease', 'id')}),
        Step('lease too few fips', 'POST', '/v1/leases',
             lease('l-fips', start, end, fip_reservation(amount=5))),
        Step('lease too many hosts', 'POST', '/v1/leases',
             lease('l-hosts', start, end,
                   host_reservation(min=5, max=5))),
        Step('lease unknown type', 'POST', '/v1/leases',
             lease('l-x', start, end, {'resource_type': 'nope:nope'})),
        Step('lease bad date', 'POST', '/v1/leases',
             lease('l-d', '2030-13-45 10:00', end, host_reservation())),
        Step('lease in the past', 'POST', '/v1/leases',
             lease('l-p', '2001-01-01 00:00', '2001-01-02 00:00',
                   host_reservation())),
        Step('lease end before start', 'POST', '/v1/leases',
             lease('l-e', end, start, host_reservation())),
        Step('lease min over max', 'POST', '/v1/leases',
             lease('l-m', start, end, host_reservation(min=3, max=2))),
        Step('lease duplicate name', 'POST', '/v1/leases',
             lease('l-host', _date(200), _date(260), host_reservation(
                 resource_properties='["==", "$gpu", "v100"]'))),
        Step('lease list', 'GET', '/v1/leases'),
        Step('lease show', 'GET', '/v1/leases/{l1}'),
        Step('lease show fip', 'GET', '/v1/leases/{l2}'),
        Step('lease show missing', 'GET', '/v1/leases/nope'),
        Step('lease rename', 'PUT', '/v1/leases/{l1}', {'name': 'l-host2'}),
        Step('lease move', 'PUT', '/v1/leases/{l1}',
             {'start_date': _date(70), 'end_date': _date(130)}),
        Step('lease end before start update', 'PUT', '/v1/leases/{l1}',
             {'end_date': _date(30)}),
        Step('lease update missing', 'PUT', '/v1/leases/nope',
             {'name': 'x'}),
        Step('host allocations', 'GET', '/v1/os-hosts/allocations'),
        Step('host allocations of lease', 'GET',
             '/v1/os-hosts/allocations?lease_id={l1}'),
        Step('host allocation', 'GET', '/v1/os-hosts/{h1}/allocation'),
        Step('host allocation missing', 'GET',
             '/v1/os-hosts/999999/allocation'),
        Step('host delete reserved', 'DELETE', '/v1/os-hosts/{h1}'),
        Step('fip delete reserved', 'DELETE', '/v1/floatingips/{f1}'),
        Step('lease delete', 'DELETE', '/v1/leases/{l1}'),
        Step('lease delete again', 'DELETE', '/v1/leases/{l1}'),
        Step('lease delete fip', 'DELETE', '/v1/leases/{l2}'),
        # A lease that starts now, its before-end event already due.
        Step('lease create now', 'POST', '/v1/leases',
             lease('l-now', 'now', _date(30), host_reservation(
                 resource_properties='["==", "$gpu", "h100"]'),
                 fip_reservation()),
             bind={'l3': ('lease', 'id')}),
        Step('wait active', 'GET', '/v1/leases/{l3}',
             until=(('lease', 'status'), 'ACTIVE')),
        Step('lease show active', 'GET', '/v1/leases/{l3}'),
        Step('lease extend active', 'PUT', '/v1/leases/{l3}',
             {'end_date': _date(180)}),
        Step('lease show extended', 'GET', '/v1/leases/{l3}'),
        Step('lease delete active', 'DELETE', '/v1/leases/{l3}'),
        # Cleaning up.
        Step('host delete', 'DELETE', '/v1/os-hosts/{h2}'),
        Step('host delete missing', 'DELETE', '/v1/os-hosts/999999'),
        Step('fip delete', 'DELETE', '/v1/floatingips/{f2}'),
        Step('fip list after', 'GET', '/v1/floatingips'),
    ]


class TestUpstreamDifferential(base.APITestCase):

    def setUp(self):
        problem = upstream_blazar.missing()
        if problem:
            self.skipTest(problem)
        super().setUp()
        # Upstream's events run every second; ours when a step waits.
        self.conf.set_override('event_interval', 3600, group='manager')
        # New capabilities are public upstream (ours private by default).
        self.conf.set_override('capability_default_visibility', 'public')
        self.server = self.useFixture(blazar_fixtures.RealServerFixture())
        self.upstream = self.useFixture(diff.UpstreamBlazar())

    def test_answers_as_upstream(self):
        upstream = diff.Side('upstream', self.upstream.endpoint)
        ours = diff.Side('blazar_ext', self.server.endpoint,
                         tick=self.manager.service.event_loop.run_once)
        outcomes = diff.run(steps(), upstream, ours)
        report, unexpected = diff.report(outcomes, ALLOWED)
        self.addDetail('differential', testtools.content.text_content(
            report))
        if os.environ.get('BLAZAR_EXT_DIFFERENTIAL_REPORT'):
            with open(os.environ['BLAZAR_EXT_DIFFERENTIAL_REPORT'],
                      'w') as f:
                f.write(report + '\n')
        self.assertEqual(0, unexpected, report)


class TestAllowList(testtools.TestCase):

    def test_allowed_differences_are_documented(self):
        with open(DOC) as f:
            doc = f.read()
        for _step, _difference, reason in ALLOWED:
            name = reason.split('``')[1]
            self.assertIn('``%s``' % name, doc)
