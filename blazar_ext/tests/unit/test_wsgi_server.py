"""The workers' shared listening socket (blazar_ext.wsgi.server)."""

import socket

import testtools

from blazar_ext.wsgi import server


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


class TestSharedSocketServer(testtools.TestCase):

    def test_accept_does_not_wait(self):
        # A worker woken for a connection another worker took must not
        # sit in accept() (cheroot's 1 s timeout) with its keep-alive
        # connections unserved.
        listening = server._listen('127.0.0.1', 0)
        self.addCleanup(listening.close)
        shared = server._SharedSocketServer(
            listening, listening.getsockname(), lambda e, s: [],
            numthreads=1)
        shared.prepare()
        self.addCleanup(shared.stop)
        self.assertIs(listening, shared.socket)
        self.assertEqual(0.0, shared.socket.gettimeout())
        self.assertIsNone(
            shared._connections._from_server_socket(shared.socket))
