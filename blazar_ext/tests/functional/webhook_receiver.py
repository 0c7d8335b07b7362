"""A webhook receiver in the test process: a real HTTP server on a free
loopback port that keeps what it got and answers as told."""

import http.server
import json
import threading

import fixtures


class Receiver(fixtures.Fixture):
    """``statuses``: the answers to give in turn (then 200); 'hang'
    answers nothing until the fixture is cleaned up."""

    def __init__(self, statuses=()):
        super().__init__()
        self.statuses = list(statuses)

    def _setUp(self):
        self.received = []
        self.lock = threading.Lock()
        self.release = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def do_POST(self):
                body = self.rfile.read(int(self.headers['Content-Length']))
                with receiver.lock:
                    receiver.received.append(
                        {'path': self.path, 'headers': dict(self.headers),
                         'body': body})
                    status = (receiver.statuses.pop(0)
                              if receiver.statuses else 200)
                if status == 'hang':
                    receiver.release.wait()
                    return
                self.send_response(status)
                self.send_header('Content-Length', '2')
                self.end_headers()
                self.wfile.write(b'ok')

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      Handler)
        self.server.daemon_threads = True
        thread = threading.Thread(target=self.server.serve_forever,
                                  daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        self.addCleanup(self.release.set)
        self.url = 'http://127.0.0.1:%d/hook' % self.server.server_port

    def events(self) -> list:
        """The CloudEvents received, in order."""
        with self.lock:
            return [json.loads(r['body']) for r in self.received]
