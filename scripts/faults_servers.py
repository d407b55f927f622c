"""The servers and helpers `scripts/faults.py` runs beside its rounds: the test origin
(Tests/Support/e2e_server.py's handler, served in this process so that its request log is read
without copying it), a remote cache tier (plain HTTP GET/HEAD/PUT, as nginx's WebDAV PUT), and the
CPU burners of FAULT_BURNERS."""

import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "Tests", "Support"))

import e2e_fixtures  # noqa: E402
import e2e_server  # noqa: E402


def start_origin():
    """The test HTTP server on 127.0.0.1 (a free port) serving Tests/Fixtures, on daemon threads."""
    e2e_fixtures.FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
    server = e2e_server.Server(("127.0.0.1", 0), e2e_server.Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    return server


def origin_requests(tag, since):
    """The origin's log entries of one round (paths holding `v=TAG-`) that arrived at or after
    `since` (seconds since the epoch)."""
    needle = "v=%s-" % tag
    with e2e_fixtures.LOCK:
        return [dict(e) for e in e2e_fixtures.STATS["log"] if needle in e["path"] and e["t"] >= since]


class TierHandler(BaseHTTPRequestHandler):
    """A Bazel-style HTTP cache: GET/HEAD an object or 404, PUT stores the body once it arrived
    whole (an upload cut short stores nothing, as nginx's WebDAV module)."""
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_PUT(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0 or length > 64 << 20:
            return self.answer(413, b"")
        body = self.rfile.read(length)
        if len(body) != length:
            return
        with self.server.lock:
            self.server.objects[self.path] = body
        self.answer(201, b"")

    def do_GET(self):
        with self.server.lock:
            body = self.server.objects.get(self.path)
        self.answer(404, b"") if body is None else self.answer(200, body)

    def do_HEAD(self):
        self.do_GET()

    def answer(self, code, body):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class TierServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass   # a client that gives up (an interrupted run) resets its connection: expected


def start_tier():
    server = TierServer(("127.0.0.1", 0), TierHandler)
    server.objects = {}
    server.lock = threading.Lock()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    return server


def tier_objects(server, prefix):
    """The tier's objects under `prefix` (a URL path), by name below it."""
    with server.lock:
        return {p[len(prefix):]: b for p, b in server.objects.items() if p.startswith(prefix)}


def start_burners(count):
    """`count` busy python3 loops (a count of CPU-bound processes beside the suite)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL,
                             start_new_session=True) for _ in range(count)]
