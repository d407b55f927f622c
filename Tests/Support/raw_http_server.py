#!/usr/bin/env python3
"""A server of canned raw HTTP answers, for tests of imgfetch's direct HTTP client (stdlib only).

Usage: raw_http_server.py DIR

Binds 127.0.0.1 on a free port and prints it as the first line of stdout; exits when its stdin
reaches end of file. For each connection it reads the request head; for `GET /ANY/NAME` it sends
the bytes of DIR/NAME exactly as they are (status line, headers, body: whatever the test wrote,
valid or not) and closes the connection. A NAME starting with `hang` gets no answer (the connection
stays open until the server exits); one starting with `trickle` gets its file one byte every 0.2 s;
one starting with `echo` gets a 200 whose body is the request head as received; a missing file
gets a plain 404. When DIR/EARLY exists, every connection gets its bytes at once,
before the request is read, and is closed with the request unread.
"""

import os
import socket
import sys
import threading
import time

DIR = sys.argv[1]
HANGING = []


def serve(conn):
    try:
        conn.settimeout(30)
        early = os.path.join(DIR, "EARLY")
        if os.path.isfile(early):
            with open(early, "rb") as f:
                conn.sendall(f.read())
            conn.close()
            return
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                return
            head += chunk
        target = head.split(b" ", 2)[1].decode("latin-1") if head.count(b" ") >= 2 else "/"
        name = os.path.basename(target)
        if name.startswith("hang"):
            HANGING.append(conn)
            return
        path = os.path.join(DIR, name)
        if name.startswith("echo"):
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(head) + head)
        elif name and os.path.isfile(path):
            with open(path, "rb") as f:
                data = f.read()
            if name.startswith("trickle"):
                for i in range(len(data)):
                    conn.sendall(data[i:i + 1])
                    time.sleep(0.2)
            else:
                conn.sendall(data)
        else:
            conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        conn.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    if conn not in HANGING:
        conn.close()


def main():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    print(s.getsockname()[1], flush=True)

    def accept():
        while True:
            try:
                conn, _ = s.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
