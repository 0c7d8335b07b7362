"""Concurrent metadefs writers all succeed.

Eight threads create, tag, describe and delete namespaces at once.
Before, on MariaDB some POST .../tags died as deadlock victims (500).
"""

import threading

import sqlalchemy as sa

from blazar_ext.api import app as api_app
from blazar_ext import context as blazar_context
from blazar_ext.db.api.metadefs import namespace as ns_api
from blazar_ext.db.api.metadefs import resource_type as rt_api
from blazar_ext.tests import base
from blazar_ext.tests import fixtures as blazar_fixtures
from blazar_ext.tests.functional import backends
from blazar_ext.tests.functional import concurrent
from blazar_ext.tests.functional import contention

THREADS = 8
ROUNDS = 4


class TestConcurrentWrites(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.api = self.useFixture(blazar_fixtures.APIFixture(api_app.build))

    def _namespace_life(self, number: int, round_: int) -> list:
        namespace = 'NS_%d_%d' % (number, round_)
        base_path = '/v2/metadefs/namespaces'
        path = '%s/%s' % (base_path, namespace)
        return [
            self.api.request('POST', base_path, {
                'namespace': namespace, 'visibility': 'public',
                'resource_type_associations': [
                    {'name': 'OS::Nova::Flavor', 'prefix': 'hw:'}]}),
            self.api.request('POST', path + '/properties', {
                'name': 'p%d' % round_, 'title': 'P', 'type': 'string'}),
            self.api.request('POST', path + '/objects', {
                'name': 'o%d' % round_, 'properties': {}}),
            self.api.request('POST', path + '/tags', {
                'tags': [{'name': 'a'}, {'name': 'b'}]}),
            self.api.request('POST', path + '/tags', {
                'tags': [{'name': 'c'}]}),
            self.api.request('DELETE', path),
        ]

    def test_namespaces_made_and_removed_at_once(self):
        def lives(number):
            for round_ in range(ROUNDS):
                yield from self._namespace_life(number, round_)
        self.assertEqual([], concurrent.failed_requests(THREADS, lives))
        listed = self.api.request('GET', '/v2/metadefs/namespaces').json()
        self.assertEqual([], [ns['namespace'] for ns in listed['namespaces']
                              if ns['namespace'].startswith('NS_')])

    def test_resource_type_made_by_another_writer_meanwhile(self):
        # The association's writer looks the type up, finds nothing,
        # and its insert waits on another transaction's uncommitted row
        # of the same name; when that commits, the type is read back.
        ctx = blazar_context.get_admin_context()
        ns_api.namespace_create(ctx, {'namespace': 'NS', 'owner': 'admin',
                                      'visibility': 'public',
                                      'protected': False})
        other = self.db.engine.connect()
        self.addCleanup(other.close)
        other.begin()
        other.execute(sa.text(
            "INSERT INTO metadef_resource_types (name, protected, "
            "created_at) VALUES ('OS::Race::Type', :false, :now)"),
            {'false': False, 'now': '2026-11-24 00:00:00'})
        inserts = contention.StatementWatch(
            self.db.engine, 'INSERT INTO metadef_resource_types')
        self.addCleanup(inserts.remove)
        # On SQLite every writer first takes the database's write lock
        # (db/session.py), so there it waits before its lookup instead.
        write_lock = contention.StatementWatch(
            self.db.engine, 'DELETE FROM leases WHERE 0 = 1')
        self.addCleanup(write_lock.remove)
        sqlite = self.db.engine.dialect.name == 'sqlite'
        waiting = write_lock if sqlite else inserts
        done = []

        def associate():
            done.append(rt_api.associate(ctx, 'NS', {
                'name': 'OS::Race::Type', 'prefix': 'race:'}))
        thread = threading.Thread(target=associate)
        thread.start()
        # The writer's statement is under way and, as a server reports,
        # blocked on the uncommitted row (SQLite cannot say; its writer
        # waits in the busy handler until the commit).
        started = contention.wait_until(lambda: waiting.began)
        blocked = None
        if not sqlite:
            blocked = contention.wait_until(
                lambda: contention.lock_waits(self.db.engine))
        finished_before_commit = waiting.finished
        other.commit()
        thread.join(30)
        self.assertEqual(['OS::Race::Type'], [a['name'] for a in done])
        # The threads met: the writer's statement began before the commit
        # and could not finish before it.
        self.assertEqual(1, started)
        self.assertEqual(0, finished_before_commit)
        if sqlite:
            # After the lock, its lookup found the committed row.
            self.assertEqual(0, inserts.began)
        else:
            # Its insert lost as a duplicate; the row was read back.
            self.assertEqual(1, blocked)
            self.assertEqual(1, len(inserts.failed), inserts.failed)
            self.assertIsInstance(inserts.failed[0], sa.exc.IntegrityError)


TestConcurrentWritesMySQL, TestConcurrentWritesPostgreSQL = (
    backends.on_each_backend(TestConcurrentWrites))
