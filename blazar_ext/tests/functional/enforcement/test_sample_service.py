"""tools/sample_enforcement.py: limits file, HTTP interface, command."""

import json
import socket
import subprocess
import sys
import time

import requests

from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional.enforcement import fixtures as efixtures
from blazar_ext.tests.unit.enforcement import base

sample_enforcement = efixtures.sample_enforcement


class SampleServiceHTTPTest(base.TestCase):

    def setUp(self):
        super().setUp()
        self.service = self.useFixture(efixtures.SampleServiceFixture({
            'token': 't',
            'default': {'max_hours': 24},
            'projects': {'p1': {'max_hosts': 1, 'max_hours': 48}},
        }))

    def post(self, path, body, token='t'):
        return requests.post(self.service.url + path, data=json.dumps(body),
                             headers={'X-Auth-Token': token}, timeout=10)

    def test_project_limits_override_defaults(self):
        lease = {'start_date': '2030-01-01 00:00',
                 'end_time': '2030-01-02 12:00', 'reservations': []}
        resp = self.post('/v1/check-create',
                         {'context': {'project_id': 'p1'}, 'lease': lease})
        self.assertEqual(204, resp.status_code)
        resp = self.post('/v1/check-update',
                         {'context': {'project_id': 'p2'},
                          'current_lease': lease, 'lease': lease})
        self.assertEqual(403, resp.status_code)
        self.assertEqual('Your lease exceeds the maximum length of 24 hours '
                         '(it lasts 36 hours).', resp.json()['message'])
        two_hosts = dict(lease, reservations=[
            {'resource_type': 'physical:host', 'min': 1, 'max': 2,
             'allocations': [{'id': '1'}, {'id': '2'}]}])
        resp = self.post('/v1/check-create',
                         {'context': {'project_id': 'p1'},
                          'lease': two_hosts})
        self.assertEqual(403, resp.status_code)
        self.assertEqual('Your project is limited to reserving 1 physical '
                         'host per lease; this lease has 2.',
                         resp.json()['message'])

    def test_on_end_always_204(self):
        resp = self.post('/v1/on-end', {'context': {}, 'lease': {}})
        self.assertEqual(204, resp.status_code)
        self.assertEqual(['/v1/on-end'],
                         [c['path'] for c in self.service.calls])

    def test_token_checked(self):
        resp = self.post('/v1/check-create', {}, token='bad')
        self.assertEqual(401, resp.status_code)

    def test_unknown_path_and_bad_json(self):
        self.assertEqual(404, self.post('/v1/nope', {}).status_code)
        resp = requests.post(self.service.url + '/v1/check-create',
                             data=b'[1', headers={'X-Auth-Token': 't'},
                             timeout=10)
        self.assertEqual(400, resp.status_code)
        self.assertEqual(200, requests.get(
            self.service.url + '/healthcheck', timeout=10).status_code)


class LimitsTest(base.TestCase):

    def test_count_hosts_uses_allocations_else_max(self):
        self.assertEqual(3, sample_enforcement.count_hosts({'reservations': [
            {'resource_type': 'physical:host', 'max': 5,
             'allocations': [{}, {}, {}]},
            {'resource_type': 'virtual:floatingip', 'amount': 9}]}))
        self.assertEqual(5, sample_enforcement.count_hosts({'reservations': [
            {'resource_type': 'physical:host', 'max': 5}]}))

    def test_from_file(self):
        path = self.create_tempfiles([(
            'limits', 'default:\n  max_hosts: 2\nprojects:\n'
                      '  p1:\n    max_hours: 1\n')], ext='.yaml')[0]
        limits = sample_enforcement.Limits.from_file(path)
        self.assertEqual({'max_hosts': 2, 'max_hours': 1},
                         limits.for_project('p1'))
        self.assertEqual({'max_hosts': 2}, limits.for_project('p2'))

    def test_main_rejects_unreadable_file(self):
        path = self.create_tempfiles([('bad', '- just\n- a list\n')],
                                     ext='.yaml')[0]
        self.assertEqual(2, sample_enforcement.main(['--config', path]))
        self.assertEqual(2, sample_enforcement.main(
            ['--config', path + '.missing']))


class SampleServiceCommandTest(base.TestCase):
    """The script serves the interface from its own process."""

    def test_runs_as_a_command(self):
        path = self.create_tempfiles([(
            'limits', 'default:\n  max_hosts: 0\n')], ext='.yaml')[0]
        with socket.socket() as s:
            s.bind(('127.0.0.1', 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen(
            [sys.executable, blazar_fixtures.tool_path('sample_enforcement'),
             '--config', path, '--port', str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.terminate)
        url = 'http://127.0.0.1:%d' % port
        for _ in range(600):
            try:
                resp = requests.get(url + '/healthcheck', timeout=1)
                break
            except requests.ConnectionError:
                self.assertIsNone(proc.poll(), 'the service exited')
                time.sleep(0.05)
        self.assertEqual(200, resp.status_code)
        resp = requests.post(url + '/v1/check-create', json={
            'context': {'project_id': 'p'},
            'lease': {'reservations': [{'resource_type': 'physical:host',
                                        'max': 1, 'allocations': []}]}},
            timeout=10)
        self.assertEqual(403, resp.status_code)
        self.assertIn('limited to reserving 0 physical hosts',
                      resp.json()['message'])
