#!/usr/bin/env python3
"""HTTP test peer for CurlTransportTests (Python 3 standard library only).

Binds 127.0.0.1 on a free port and prints "PORT CLOSED_PORT" as its first stdout line, where
CLOSED_PORT is a port that was free a moment ago and has nothing listening (for connection-refused
tests). Exits when its standard input closes (the test process ended) or on SIGTERM.

Routes:
  /bytes/N        N bytes (i % 256), with Content-Length
  /chunked/N      N bytes, Transfer-Encoding: chunked, no Content-Length
  /status/CODE    that status, a short body
  /redirect-file  302 to file:///etc/passwd
  /redirect/N     a chain of N redirects ending at /bytes/10
  /slow           sleeps 5 s, then 10 bytes
  /delay/MS       sleeps MS milliseconds, then 10 bytes; counts how many are in progress at once
  /maxactive      the most /delay requests in progress at once since the last /maxactive (then resets)
  /count/QUERY    how many requests so far carried the query string QUERY (e.g. /slow?tag=a -> /count/tag=a)
  /headers        ETag: "abc", Last-Modified, Cache-Control: max-age=60; the body is the request's
                  If-None-Match (empty when absent)
  /echo-header/NAME  the body is the value of request header NAME (empty when absent)
"""
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


COUNTS = {}
COUNTS_LOCK = threading.Lock()
ACTIVE = {"now": 0, "max": 0}


def payload(n):
    return bytes(i % 256 for i in range(n))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet
        pass

    def send_body(self, code, body, headers=()):
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def do_GET(self):
        try:
            self.route()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def route(self):
        query = self.path.split("?")[1] if "?" in self.path else ""
        with COUNTS_LOCK:
            COUNTS[query] = COUNTS.get(query, 0) + 1
        parts = self.path.split("?")[0].strip("/").split("/")
        head = parts[0]
        arg = parts[1] if len(parts) > 1 else ""
        if head == "bytes":
            self.send_body(200, payload(int(arg)), [("Content-Type", "application/octet-stream")])
        elif head == "chunked":
            n = int(arg)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            data = payload(n)
            for i in range(0, n, 4096):
                chunk = data[i:i + 4096]
                self.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        elif head == "status":
            code = int(arg)
            self.send_body(code, b"status %d\n" % code)
        elif head == "redirect-file":
            self.send_body(302, b"", [("Location", "file:///etc/passwd")])
        elif head == "redirect":
            n = int(arg)
            target = "/bytes/10" if n <= 1 else "/redirect/%d" % (n - 1)
            self.send_body(302, b"", [("Location", target)])
        elif head == "slow":
            time.sleep(5)
            self.send_body(200, payload(10))
        elif head == "headers":
            inm = self.headers.get("If-None-Match", "")
            self.send_body(200, inm.encode(), [
                ("ETag", '"abc"'),
                ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT"),
                ("Cache-Control", "max-age=60"),
            ])
        elif head == "delay":
            with COUNTS_LOCK:
                ACTIVE["now"] += 1
                ACTIVE["max"] = max(ACTIVE["max"], ACTIVE["now"])
            try:
                time.sleep(int(arg) / 1000.0)
                self.send_body(200, payload(10))
            finally:
                with COUNTS_LOCK:
                    ACTIVE["now"] -= 1
        elif head == "maxactive":
            with COUNTS_LOCK:
                n = ACTIVE["max"]
                ACTIVE["max"] = ACTIVE["now"]
            self.send_body(200, b"%d" % n)
        elif head == "count":
            # How many requests carried the query string `arg` (for example /slow?tag=x -> /count/tag=x).
            with COUNTS_LOCK:
                n = COUNTS.get(arg, 0)
            self.send_body(200, b"%d" % n)
        elif head == "echo-header":
            self.send_body(200, self.headers.get(arg, "").encode())
        else:
            self.send_body(404, b"not found\n")


class Server(ThreadingHTTPServer):
    request_queue_size = 128
    daemon_threads = True

    def handle_error(self, request, client_address):
        # Clients that abort (byte cap, timeout, cancellation) are expected: stay quiet.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def closed_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    server = Server(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    print("%d %d" % (port, closed_port()), flush=True)

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
