"""Galera health for HAProxy, as clustercheck does in OpenStack
deployments: an HTTP server per node that answers 200 while the node is
Synced (wsrep_local_state 4) and ready, 503 otherwise.

    python clustercheck.py PORT:SOCKET [PORT:SOCKET ...]

One process, one thread per node; each request asks the node over its
unix socket as root (socket authentication).
"""

import http.server
import sys
import threading

import pymysql


def synced(socket_path: str) -> bool:
    try:
        conn = pymysql.connect(unix_socket=socket_path, user='root',
                               connect_timeout=2, read_timeout=2)
    except pymysql.MySQLError:
        return False
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW STATUS WHERE Variable_name IN "
                        "('wsrep_local_state', 'wsrep_ready')")
            status = dict(cur.fetchall())
    except pymysql.MySQLError:
        return False
    finally:
        conn.close()
    return (status.get('wsrep_local_state') == '4' and
            status.get('wsrep_ready') == 'ON')


def handler(socket_path: str):
    class Check(http.server.BaseHTTPRequestHandler):
        def _answer(self, body: bool) -> None:
            ok = synced(socket_path)
            text = b'Galera node is synced.\n' if ok else \
                b'Galera node is not synced.\n'
            self.send_response(200 if ok else 503)
            self.send_header('Content-Type', 'text/plain')
            self.send_header('Content-Length', str(len(text)))
            self.send_header('Connection', 'close')
            self.end_headers()
            if body:
                self.wfile.write(text)

        def do_GET(self):
            self._answer(True)

        def do_OPTIONS(self):  # HAProxy's default httpchk method
            self._answer(True)

        def do_HEAD(self):
            self._answer(False)

        def log_message(self, *args):
            pass
    return Check


def main(specs: list) -> int:
    servers = []
    for spec in specs:
        port, socket_path = spec.split(':', 1)
        server = http.server.ThreadingHTTPServer(
            ('127.0.0.1', int(port)), handler(socket_path))
        servers.append(server)
    threads = [threading.Thread(target=s.serve_forever) for s in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
