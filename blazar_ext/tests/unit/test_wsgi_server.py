"""The workers' shared listening socket (blazar_ext.wsgi.server)."""

import socket
import threading
import time
from unittest import mock

from oslo_config import cfg
import testtools

from blazar_ext.conf import api as api_conf
from blazar_ext.wsgi import server


def _app(environ, start_response):
    return []


class TestSharedListeningSocket(testtools.TestCase):

    def _listening(self) -> socket.socket:
        listening = server._listen('127.0.0.1', 0)
        self.addCleanup(listening.close)
        return listening

    def test_listening_socket_has_tcp_nodelay(self):
        listening = self._listening()
        self.assertTrue(listening.getsockopt(socket.IPPROTO_TCP,
                                             socket.TCP_NODELAY))

    def test_accepted_connection_has_tcp_nodelay(self):
        # Without it a keep-alive response's last segment waits for the
        # client's delayed ACK: 40 ms a request.
        listening = self._listening()
        client = socket.create_connection(listening.getsockname())
        self.addCleanup(client.close)
        accepted, _ = listening.accept()
        self.addCleanup(accepted.close)
        self.assertTrue(accepted.getsockopt(socket.IPPROTO_TCP,
                                            socket.TCP_NODELAY))

    def test_accept_defers_while_its_worker_is_ahead(self):
        listening = self._listening()
        balance = server._Balance(2)
        listening.balance = balance
        balance.opened()
        client = socket.create_connection(listening.getsockname())
        self.addCleanup(client.close)
        with mock.patch.object(server.time, 'sleep') as sleep:
            accepted, _ = listening.accept()
        accepted.close()
        sleep.assert_called_once_with(server.ACCEPT_DEFER)

    def test_accept_does_not_defer_when_even(self):
        listening = self._listening()
        listening.balance = server._Balance(2)
        client = socket.create_connection(listening.getsockname())
        self.addCleanup(client.close)
        with mock.patch.object(server.time, 'sleep') as sleep:
            accepted, _ = listening.accept()
        accepted.close()
        sleep.assert_not_called()


class TestBalance(testtools.TestCase):

    def test_ahead_of_the_least_loaded_worker(self):
        balance = server._Balance(2)
        balance.opened()  # worker 0: 1, worker 1: 0
        self.assertTrue(balance.ahead())
        balance.index = 1
        self.assertFalse(balance.ahead())
        balance.opened()  # 1, 1
        self.assertFalse(balance.ahead())
        balance.index = 0
        balance.closed()  # 0, 1
        self.assertFalse(balance.ahead())
        balance.index = 1
        self.assertTrue(balance.ahead())


class TestSharedSocketServer(testtools.TestCase):

    def _server(self) -> server._SharedSocketServer:
        listening = server._listen('127.0.0.1', 0)
        self.addCleanup(listening.close)
        shared = server._SharedSocketServer(
            listening, server._Balance(2), listening.getsockname(), _app,
            numthreads=1)
        shared.prepare()
        self.addCleanup(shared.stop)
        return shared

    def test_accept_does_not_wait(self):
        # A worker woken for a connection another worker took must not
        # sit in accept() (cheroot's 1 s timeout) with its keep-alive
        # connections unserved.
        shared = self._server()
        self.assertEqual(0.0, shared.socket.gettimeout())
        self.assertIsNone(
            shared._connections._from_server_socket(shared.socket))

    def test_connections_counted_while_open(self):
        shared = self._server()
        client = socket.create_connection(shared.socket.getsockname())
        self.addCleanup(client.close)
        conn = shared._connections._from_server_socket(shared.socket)
        self.assertEqual([1, 0], list(shared.balance._counts))
        conn.close()
        self.assertEqual([0, 0], list(shared.balance._counts))


class TestKeepAlive(testtools.TestCase):

    def test_keep_alive_limit_applied(self):
        # cheroot's own limit of 10 closed one connection in four under
        # 64 keep-alive clients.
        made = server._server(server.wsgi.Server, ('127.0.0.1', 0), _app,
                              keep_alive=64, numthreads=1)
        self.assertEqual(64, made.keep_alive_conn_limit)

    def test_option_default(self):
        conf = cfg.ConfigOpts()
        api_conf.register_opts(conf)
        conf([])
        self.assertEqual(100, conf.api.keep_alive_connections)


class TestWorkQueue(testtools.TestCase):

    def _waiting(self, work, names: list) -> list:
        """Threads named ``names`` waiting on ``work`` in that order;
        each appends (name, item) to the list returned once it gets one."""
        got = []
        for waiting, name in enumerate(names, 1):
            thread = threading.Thread(
                target=lambda name=name: got.append((name, work.get())),
                daemon=True)
            thread.start()
            deadline = time.monotonic() + 10
            while (len(work.not_empty._waiters) < waiting
                   and time.monotonic() < deadline):
                time.sleep(0.001)
        return got

    def _served(self, got: list, count: int) -> list:
        deadline = time.monotonic() + 10
        while len(got) < count and time.monotonic() < deadline:
            time.sleep(0.001)
        return list(got)

    def test_last_idle_worker_woken_first(self):
        # A FIFO wake-up (threading.Condition's) hands each request to
        # the worker idle the longest: round all of them in turn.
        work = server._WorkQueue()
        got = self._waiting(work, ['first', 'second', 'third'])
        work.put('a')
        self.assertEqual([('third', 'a')], self._served(got, 1))
        work.put('b')
        self._served(got, 2)
        work.put('c')
        self.assertEqual([('third', 'a'), ('second', 'b'), ('first', 'c')],
                         self._served(got, 3))

    def test_server_workers_take_from_it(self):
        made = server._server(server.wsgi.Server, ('127.0.0.1', 0), _app,
                              keep_alive=64, numthreads=1)
        self.assertIsInstance(made.requests._queue, server._WorkQueue)
        made.requests.put('conn')
        self.assertEqual('conn', made.requests.get())


class TestStartupObjectsFrozen(testtools.TestCase):

    def test_frozen_after_start_up_before_serving(self):
        # The app is built before _serve_one; the collector's full walks
        # must then skip its objects (a ~100 ms pause on some requests).
        calls = mock.Mock()
        fake = mock.Mock(bind_addr=('127.0.0.1', 0))
        fake.start.side_effect = lambda: calls.start()
        with mock.patch.object(server.gc, 'freeze', calls.freeze), \
                mock.patch.object(server.gc, 'collect', calls.collect), \
                mock.patch.object(server.signal, 'signal'):
            server._serve_one(fake, 1, 'test')
        self.assertEqual([mock.call.collect(), mock.call.freeze(),
                          mock.call.start()], calls.mock_calls)
        fake.stop.assert_called_once_with()
