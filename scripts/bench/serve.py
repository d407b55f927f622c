#!/usr/bin/env python3
"""serve.py DIR PORT -- fallback static file server on 127.0.0.1:PORT (threaded, HTTP/1.1 keep-alive),
used by bench.sh when nginx is not installed. No /slow/ location (figure 10 is skipped then)."""
import functools
import http.server
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass


def main():
    directory, port = sys.argv[1], int(sys.argv[2])
    handler = functools.partial(Handler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
