"""blazar-ext-api --workers N: N processes accepting on one socket.

The real console script on a migrated SQLite file (reads need no
manager). Each worker in turn is stopped (SIGSTOP): the other still
answers every new connection, so both serve, and from one shared queue (a
stopped worker's own SO_REUSEPORT queue would leave connections waiting).
"""

import os

import fixtures
from oslotest import base
import requests
import sqlalchemy as sa

from blazar_ext.db import migration
from blazar_ext.tests.functional import services

ADMIN = {'X-Auth-Token': 'admin'}


class TestAPIWorkers(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.Timeout(120, gentle=True))
        self.dir = self.useFixture(fixtures.TempDir()).path
        url = 'sqlite:///%s' % os.path.join(self.dir, 'blazar-ext.sqlite')
        engine = sa.create_engine(url)
        self.addCleanup(engine.dispose)
        migration.upgrade('head', engine)
        port = services.free_port()
        self.endpoint = 'http://127.0.0.1:%d' % port
        config = os.path.join(self.dir, 'blazar-ext.conf')
        with open(config, 'w') as f:
            f.write('[DEFAULT]\ntransport_url = fake:/\nstate_path = %s\n'
                    '[database]\nconnection = %s\n'
                    '[api]\nhost = 127.0.0.1\nport = %d\n'
                    'auth_strategy = noauth\n' % (self.dir, url, port))
        self.api = self.useFixture(services.ServiceProcess(
            'api', [services.script('blazar-ext-api'), '--config-file',
                    config, '--workers', '2'], self.dir))
        services.wait_for(
            lambda: services.http_answers(self.endpoint + '/'), 60,
            'blazar-ext-api on %s' % self.endpoint, processes=[self.api])
        self.workers = services.api_workers(self.api.process.pid, 2)

    def _answers(self, times: int = 6) -> None:
        for _ in range(times):
            # A new connection each time: any worker may take it.
            resp = requests.get(self.endpoint + '/v1/leases', headers=ADMIN,
                                timeout=20)
            self.assertEqual(200, resp.status_code, resp.text)
            self.assertEqual({'leases': []}, resp.json())

    def test_each_worker_answers_while_the_other_is_stopped(self):
        self.assertEqual(2, len(set(self.workers)))
        self._answers()
        for worker in self.workers:
            with services.stopped(worker):
                self._answers()
        self._answers()
