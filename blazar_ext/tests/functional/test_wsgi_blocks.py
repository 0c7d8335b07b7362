"""The API server hands large bodies to cheroot in blocks."""

import threading

from cheroot import wsgi
import requests
import testtools

from blazar_ext.wsgi import blocks


class _Body(list):
    closed = False

    def close(self):
        self.closed = True


class TestInBlocks(testtools.TestCase):

    def _app(self, *chunks):
        body = _Body(chunks)

        def app(environ, start_response):
            start_response('200 OK', [('Content-Type', 'text/plain')])
            return body
        return app, body

    def test_large_chunks_are_sliced_and_small_ones_kept(self):
        big = bytes(range(256)) * 1000  # 256,000 bytes
        app, body = self._app(b'head', big, b'tail')
        started = []
        out = list(blocks.in_blocks(app)({}, lambda *a: started.append(a)))
        self.assertEqual([('200 OK', [('Content-Type', 'text/plain')])],
                         started)
        self.assertEqual(b'head' + big + b'tail', b''.join(out))
        self.assertEqual([4, 65536, 65536, 65536, 59392, 4],
                         [len(chunk) for chunk in out])
        self.assertTrue(all(type(chunk) is bytes for chunk in out))
        self.assertTrue(body.closed)

    def test_body_closed_when_the_client_goes(self):
        app, body = self._app(b'x' * 200000)
        sent = blocks.in_blocks(app)({}, lambda *a: None)
        next(sent)
        sent.close()
        self.assertTrue(body.closed)

    def test_served_whole_by_cheroot(self):
        big = b'0123456789abcdef' * 500000  # 8 MB
        app, _body = self._app(big)
        httpd = wsgi.Server(('127.0.0.1', 0), blocks.in_blocks(app),
                            numthreads=2)
        httpd.prepare()
        threading.Thread(target=httpd.serve, daemon=True).start()
        self.addCleanup(httpd.stop)
        resp = requests.get('http://127.0.0.1:%d/' % httpd.bind_addr[1],
                            timeout=30)
        self.assertEqual(big, resp.content)
