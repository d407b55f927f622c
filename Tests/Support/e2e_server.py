#!/usr/bin/env python3
"""HTTP server for imgfetch's end-to-end tests (Python 3 standard library only; its fixture routes
and the state they share are in e2e_fixtures.py).

Usage: e2e_server.py FIXTURES_DIR [--tls CERT_PEM KEY_PEM]

With --tls it serves https (HTTP/1.1) with that certificate and key.
Every request's headers are recorded (the log of /__stats): tests assert what arrived
(headers, Referer, User-Agent, Authorization, Cookie), i.e. the server echoes what it received.

Binds 127.0.0.1 on a free port and prints that port as the first line of stdout.
Exits when its stdin reaches end of file (i.e. when the test process that started it
goes away), or on SIGTERM.

Routes (query parameters compose):
  GET /img/NAME          a fixture, with Content-Type, Content-Length, ETag ("<sha1>") and
                         Last-Modified; If-None-Match / If-Modified-Since give 304. red.tiff and
                         blue.tiff are made (two 320x240 TIFFs of one length, a day old).
      ?no304=1           never answer 304
      ?cc=VALUE          send "Cache-Control: VALUE"
      ?bare304=1         a 304 carries no Cache-Control / Expires (only the validators)
      ?expires=now       send an Expires date in the past
      ?chunked=1         chunked transfer encoding, no Content-Length
      ?trickle=MS        the body in pieces of 4000 bytes, MS milliseconds apart (decoding while
                         downloading sees many small pieces)
      ?short=N           Content-Length of the whole body, but only its first N bytes, then the
                         connection closes (a transfer cut off mid-body)
      ?etag=VALUE        send VALUE (percent-decoded: it may hold a bare CR) as the ETag
      ?lm=VALUE          send VALUE (percent-decoded) as Last-Modified
      ?cut=PERCENT       only the first PERCENT % of the fixture, served as if it were whole
      ?eoi=1             with cut: the cut body closed with a JPEG end marker (FF D9)
      ?pad=BYTES         a JPEG made about BYTES larger by comment segments (COM) after its SOI
                         marker: a valid image of any size
      ?setcookie=NAME    send "Set-Cookie: NAME=set-by-server; Path=/" (the value is not in the URL)
      ?needcookie=NAME   403 unless the request's Cookie holds NAME=set-by-server (a logged-in image)
      ?drop=PERCENT&id=ID  the first request for ID gets PERCENT % of its body (of the whole
                         Content-Length), then the connection closes (a transfer cut after PERCENT %)
      ?etag2=VALUE&id=ID requests for ID after its first one get the ETag VALUE (a changed resource)
      ?noval=1           neither ETag nor Last-Modified
      ?noetag=1          Last-Modified only (no ETag)
      ?then=NAME&id=ID   requests for ID after its first one get the fixture NAME's bytes (a file
                         rewritten in place; the validators stay unless etag2 changes them)
      ?no206validators=1 a 206 carries neither ETag nor Last-Modified
      ?digest=repr,content  RFC 9530 Repr-Digest (of the whole) and/or Content-Digest (of the bytes
                         sent); &baddigest=1 each wrong, &digestalg=sha-512, &digestafter=1 only
                         on requests for ID after its first one
      ?vary=VALUE        send "Vary: VALUE"
      Range: bytes=N-    answered 206 with Content-Range (416 past the end), unless If-Range names
                         another ETag or date than the response's (then 200, the whole body)
      ?ignoreifrange=1   a Range is answered 206 whatever If-Range says (a server that ignores it)
      ?crtotal=VALUE     a 206's Content-Range says VALUE (as given) for the whole length
      ?xrobots=VALUE     send "X-Robots-Tag: VALUE" (?tdm=VALUE: tdm-reservation, ?usage=VALUE:
                         Content-Usage)
      ?v=ANY             only makes a distinct URL
  GET /status/CODE       responds CODE with a small text body (?cc=VALUE: with that Cache-Control)
  GET /flaky/ID?fail=N&code=503&img=NAME&retry_after=S
                         the first N requests for ID get CODE (with Retry-After: S when
                         given), then the fixture NAME (default photo.jpg) is served
  GET /slow/NAME?seconds=S
                         sleeps S seconds (default 0.3), then answers as /img/NAME
  GET /tree/ANY/PATH?img=NAME
                         the fixture NAME (default tiny.jpg), whatever the path below /tree/
  GET /auth/NAME         401 (WWW-Authenticate: Basic) without an Authorization header, else /img/NAME
  GET /hang?seconds=S    sleeps S seconds, then answers 200 with a small text body
  GET /redirect?to=URL   302 to URL (&code=301|303|307|308 another status, &cc=VALUE a Cache-Control,
                         &setcookie=NAME as for /img)
  GET|POST /__robots?status=N&body=TEXT, /__tdmrep?status=N&body=TEXT
                         what /robots.txt and /.well-known/tdmrep.json answer from now on: status N
                         (default 200) with the POST's body, else TEXT (percent-decoded), after
                         &delay=S seconds; each is 404 until set; /__reset clears them
  GET /__stats           JSON {"total", "paths": {path+query: count}, "log": [{"path", "method",
                         "headers", "t", "status", "sent"}]} (header names lower-cased; t: arrival
                         time in seconds since the epoch; status: the response code, once sent;
                         sent: the body bytes written);
                         /__stats and /__reset are not counted
  GET|POST /__reset      clears counts, log and flaky counters
  POST /__script?id=ID   sets what the next requests of /script/ID get (a JSON body):
                         {"status": 200, "headers": [[name, value], ...], "body": "image" | "text",
                          "disconnect": false, "validate": false}
                         A number as a header value is an HTTP-date that many seconds from the
                         moment of the response. "disconnect" closes the connection without a
                         response; "validate" answers 304 to a request whose If-None-Match equals the
                         step's ETag or whose If-Modified-Since equals its Last-Modified. The body
                         is the fixture tiny.jpg ("image") or a few bytes of text. Only the listed
                         headers are sent (no automatic Date), plus Content-Type and Content-Length.
  GET /__script?id=ID    JSON {"count": N, "requests": [{header: value}, ...]} of /script/ID
  GET /script/ID[?...]   answers as the last POST /__script for ID says (404 before one)
HEAD is supported on every route (same headers, no body).
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

import e2e_fixtures
from e2e_fixtures import FLAKY, LOCK, POLICY, SCRIPTS, STATS, FixtureRoutes


class Handler(FixtureRoutes, BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "imgfetch-e2e/1.0"

    def log_message(self, format, *args):  # quiet
        pass

    # --- helpers -------------------------------------------------------------------------

    def send_body(self, code, body, content_type="text/plain; charset=utf-8", headers=None,
                  chunked=False, trickle_ms=0, short=None):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        for key, value in (headers or []):
            self.send_header(key, value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command == "HEAD":
            return
        entry = getattr(self, "log_entry", None)
        if entry is not None:
            with LOCK:
                entry["sent"] = len(body) if short is None else min(short, len(body))
        if chunked:
            step = 16 * 1024
            for i in range(0, len(body), step):
                part = body[i:i + step]
                self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        elif short is not None:
            self.wfile.write(body[:short])
            self.wfile.flush()
            self.close_connection = True
        elif trickle_ms > 0:
            step = 4000
            for i in range(0, len(body), step):
                if entry is not None:
                    with LOCK:
                        entry["sent"] = i   # what the client may have had when it went away
                self.wfile.write(body[i:i + step])
                self.wfile.flush()
                if entry is not None:
                    with LOCK:
                        entry["sent"] = min(i + step, len(body))   # before the pause: a client done reading
                time.sleep(trickle_ms / 1000.0)                    # may look at the log at once
        else:
            self.wfile.write(body)
        self.wfile.flush()

    def send_text(self, code, text, headers=None):
        self.send_body(code, text.encode("utf-8"), headers=headers)

    def record(self, path):
        entry = {
            "path": path,
            "method": self.command,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "t": time.time(),
        }
        with LOCK:
            STATS["total"] += 1
            STATS["paths"][path] = STATS["paths"].get(path, 0) + 1
            STATS["log"].append(entry)
        self.log_entry = entry

    def send_response(self, code, message=None):
        entry = getattr(self, "log_entry", None)
        if entry is not None:
            with LOCK:
                entry["status"] = code
        super().send_response(code, message)

    # --- routes --------------------------------------------------------------------------

    def do_GET(self):
        self.handle_request()

    def do_HEAD(self):
        self.handle_request()

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.post_body = self.rfile.read(length) if length else b""
        self.handle_request()

    def handle_request(self):
        self.log_entry = None  # one handler serves every request of a keep-alive connection
        parts = urlsplit(self.path)
        route = parts.path
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}

        if route == "/__stats":
            with LOCK:
                body = json.dumps(STATS).encode("utf-8")
            return self.send_body(200, body, "application/json")
        if route == "/__reset":
            with LOCK:
                STATS["total"] = 0
                STATS["paths"] = {}
                STATS["log"] = []
                FLAKY.clear()
                POLICY.clear()
            return self.send_text(200, "reset\n")
        if route in ("/__robots", "/__tdmrep"):
            path = "/robots.txt" if route == "/__robots" else "/.well-known/tdmrep.json"
            body = getattr(self, "post_body", b"") if self.command == "POST" else query.get("body", "").encode("utf-8")
            with LOCK:
                POLICY[path] = (int(query.get("status", "200")), body, float(query.get("delay", "0")))
            return self.send_text(200, "ok\n")

        if route == "/__script":
            script_id = query.get("id", "")
            if self.command == "POST":
                step = json.loads(getattr(self, "post_body", b"") or b"{}")
                with LOCK:
                    SCRIPTS.setdefault(script_id, {"step": None, "requests": []})["step"] = step
                return self.send_text(200, "ok\n")
            with LOCK:
                requests = list(SCRIPTS.get(script_id, {"requests": []})["requests"])
            body = json.dumps({"count": len(requests), "requests": requests}).encode("utf-8")
            return self.send_body(200, body, "application/json")

        self.record(self.path)

        if route in ("/robots.txt", "/.well-known/tdmrep.json"):
            with LOCK:
                status, body, delay = POLICY.get(route, (404, b"not set\n", 0))
            time.sleep(delay)
            return self.send_body(status, body)
        if route.startswith("/script/"):
            return self.serve_script(unquote(route[len("/script/"):]))
        if route.startswith("/img/"):
            return self.serve_image(unquote(route[len("/img/"):]), query)
        if route.startswith("/status/"):
            try:
                code = int(route[len("/status/"):])
            except ValueError:
                return self.send_text(400, "bad status code\n")
            extra = [("Cache-Control", query["cc"])] if "cc" in query else []
            return self.send_text(code, "status %d\n" % code, headers=extra)
        if route.startswith("/flaky/"):
            flaky_id = route[len("/flaky/"):]
            fail = int(query.get("fail", "1"))
            with LOCK:
                seen = FLAKY.get(flaky_id, 0)
                FLAKY[flaky_id] = seen + 1
            if seen < fail:
                code = int(query.get("code", "503"))
                headers = []
                if query.get("retry_after"):
                    headers.append(("Retry-After", query["retry_after"]))
                return self.send_text(code, "flaky failure %d of %d\n" % (seen + 1, fail),
                                      headers=headers)
            return self.serve_image(query.get("img", "photo.jpg"), query)
        if route.startswith("/auth/"):
            if not self.headers.get("Authorization"):
                return self.send_text(401, "login required\n", headers=[("WWW-Authenticate", 'Basic realm="e2e"')])
            return self.serve_image(unquote(route[len("/auth/"):]), query)
        if route.startswith("/tree/"):
            # Any path below /tree/ serves the fixture ?img= names (default tiny.jpg).
            return self.serve_image(query.get("img", "tiny.jpg"), query)
        if route.startswith("/slow/"):
            time.sleep(float(query.get("seconds", "0.3")))
            return self.serve_image(unquote(route[len("/slow/"):]), query)
        if route == "/hang":
            time.sleep(float(query.get("seconds", "10")))
            return self.send_text(200, "done hanging\n")
        if route == "/redirect":
            target = query.get("to", "/img/photo.jpg")
            headers = [("Location", target)]
            if "cc" in query:
                headers.append(("Cache-Control", query["cc"]))
            if "setcookie" in query:
                headers.append(("Set-Cookie", query["setcookie"] + "=set-by-server; Path=/"))
            return self.send_text(int(query.get("code", "302")), "redirecting\n", headers=headers)
        return self.send_text(404, "not found: %s\n" % route)

class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # Clients that give up (timeouts, size limits) reset connections: that is expected.
        exc = sys.exc_info()[1]
        if isinstance(exc, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError,
                            TimeoutError)):
            return
        super().handle_error(request, client_address)


def watch_stdin():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except Exception:
        pass
    os._exit(0)


def main():
    args = sys.argv[1:]
    tls = None
    if len(args) == 4 and args[1] == "--tls":
        tls = (args[2], args[3])
        args = args[:1]
    if len(args) != 1:
        sys.stderr.write("usage: e2e_server.py FIXTURES_DIR [--tls CERT_PEM KEY_PEM]\n")
        sys.exit(2)
    e2e_fixtures.FIXTURES = os.path.abspath(args[0])
    server = Server(("127.0.0.1", 0), Handler)
    if tls is not None:
        # https: the handshake happens on the handler thread's first read (a client that refuses
        # the certificate fails there, never blocking the accept loop).
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls[0], tls[1])
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    sys.stdout.write("%d\n" % server.server_address[1])
    sys.stdout.flush()
    if not sys.stdin.isatty():
        threading.Thread(target=watch_stdin, daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
