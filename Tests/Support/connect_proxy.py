#!/usr/bin/env python3
"""A small forward proxy for imgfetch's end-to-end tests (Python 3 standard library only).

Usage: connect_proxy.py LOG_FILE

Binds 127.0.0.1 on a free port and prints that port as the first line of stdout. Exits when its
stdin reaches end of file, or on SIGTERM. Handles:
  CONNECT host:port     a tunnel (https through the proxy)
  GET http://host/...   forwarded as an origin-form request on a new connection (plain http);
                        any other method too (PUT, HEAD), with its Content-Length body
Each request is appended to LOG_FILE as one line, "CONNECT host:port" or "GET http://host/...",
("PUT http://..."), once it has been forwarded, so tests can assert what went through the proxy. Only 127.0.0.1 and
localhost are forwarded to; anything else gets 403.
"""

import os
import select
import socket
import sys
import threading
from urllib.parse import urlsplit

LOG = ""
LOCK = threading.Lock()


def log(line):
    with LOCK:
        with open(LOG, "a") as f:
            f.write(line + "\n")


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
        if len(data) > 1 << 20:
            return None, b""
    head, rest = data.split(b"\r\n\r\n", 1)
    return head.decode("latin-1"), rest


def pipe(a, b):
    socks = [a, b]
    try:
        while True:
            readable, _, _ = select.select(socks, [], [], 30)
            if not readable:
                return
            for s in readable:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        return


def allowed(host):
    return host in ("127.0.0.1", "localhost")


def handle(conn):
    try:
        head, rest = read_head(conn)
        if head is None:
            return
        lines = head.split("\r\n")
        method, target, _ = (lines[0].split(" ") + ["", ""])[:3]
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            if not allowed(host):
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                return
            upstream = socket.create_connection((host, int(port)), timeout=10)
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            log("CONNECT " + target)
            if rest:
                upstream.sendall(rest)
            pipe(conn, upstream)
            upstream.close()
            return
        parts = urlsplit(target)
        if parts.scheme != "http" or not allowed(parts.hostname or ""):
            conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return
        upstream = socket.create_connection((parts.hostname, parts.port or 80), timeout=10)
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        headers = [h for h in lines[1:] if not h.lower().startswith(("proxy-connection:", "connection:"))]
        request = "%s %s HTTP/1.1\r\n%s\r\nConnection: close\r\n\r\n" % (method, path, "\r\n".join(headers))
        upstream.sendall(request.encode("latin-1") + rest)
        # A request body (a PUT's) is forwarded whole, however many reads it takes.
        length = 0
        for h in headers:
            name, _, value = h.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip() or 0)
        left = length - len(rest)
        while left > 0:
            chunk = conn.recv(min(left, 65536))
            if not chunk:
                break
            upstream.sendall(chunk)
            left -= len(chunk)
        log("%s %s" % (method, target))
        # The response goes back as is; the connection closes after it (Connection: close).
        while True:
            data = upstream.recv(65536)
            if not data:
                break
            conn.sendall(data)
        upstream.close()
    except OSError:
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def watch_stdin():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except Exception:
        pass
    os._exit(0)


def main():
    global LOG
    if len(sys.argv) != 2:
        sys.stderr.write("usage: connect_proxy.py LOG_FILE\n")
        sys.exit(2)
    LOG = sys.argv[1]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    sys.stdout.write("%d\n" % listener.getsockname()[1])
    sys.stdout.flush()
    if not sys.stdin.isatty():
        threading.Thread(target=watch_stdin, daemon=True).start()
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
