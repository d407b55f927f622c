#!/usr/bin/env python3
"""A remote cache store that misbehaves on purpose, for the tests of `cache pull` (stdlib only).

Usage: hostile_store.py MODE DIR

Binds 127.0.0.1 on a free port and prints it as the first line of stdout; exits when its stdin
reaches end of file. Every request line is appended to DIR/requests.log. MODE:

  s3-fresh      every S3 listing page (a GET with list-type=2) says IsTruncated=true with a new
                NextContinuationToken and lists no key
  s3-alternate  the same, but the tokens alternate A, B, A, B, ... and each page lists one new key
  s3-repeat     every page lists the same three keys (DIR/keys, one a line) with a new token
  zeros         an HTTP store: the listing (GET of the prefix) names DIR/*.meta and an image for
                each; a .meta is served from DIR; an image is a 200 whose Content-Length is the
                `bytes` its .meta states and whose body is that many zeros
  speculative   an HTTP store whose every image answers 200 with a head announcing 1 GB and then
                zeros, 1 MiB every 20 ms, until the client goes; a .meta is per DIR/meta: `absent`
                (404), `fail` (500), or `template` (DIR/template with KEY replaced by the key asked for)
  big-listing   an HTTP store: the listing is a JSON autoindex of DIR's files followed by
                DIR/filler (a number) entries of names that are not cache objects; files in DIR
                are served as they are

Any other request gets a 404.
"""

import http.server
import os
import socketserver
import sys
import threading
import time
import uuid

MODE = sys.argv[1]
DIR = sys.argv[2]
LOCK = threading.Lock()
STATE = {"pages": 0}


def s3_page(keys, token):
    contents = "".join("<Contents><Key>%s</Key><Size>1</Size></Contents>" % k for k in keys)
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>b</Name>%s"
            "<IsTruncated>true</IsTruncated><NextContinuationToken>%s</NextContinuationToken>"
            "</ListBucketResult>" % (contents, token)).encode()


def meta_bytes(path):
    with open(path, "rb") as f:
        for line in f.read().decode("utf-8", "replace").split("\n"):
            if line.startswith("bytes\t"):
                return int(line.split("\t", 1)[1])
    return 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, status, body, content_type="application/octet-stream"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        with LOCK:
            with open(os.path.join(DIR, "requests.log"), "a") as log:
                log.write(self.requestline + "\n")
            path, _, query = self.path.partition("?")
            if "list-type=2" in query:
                STATE["pages"] += 1
            page = STATE["pages"]
        name = os.path.basename(path)
        if MODE.startswith("s3-") and "list-type=2" in query:
            keys = []
            if MODE == "s3-alternate":
                token = "A" if page % 2 else "B"
                keys = ["p/%s.meta" % (uuid.uuid4().hex * 2)]
            else:
                token = uuid.uuid4().hex
            if MODE == "s3-repeat":
                with open(os.path.join(DIR, "keys")) as f:
                    keys = [k.strip() for k in f if k.strip()]
            return self.send_body(200, s3_page(keys, token), "application/xml")
        if MODE == "zeros":
            if path.endswith("/"):
                names = [n for n in sorted(os.listdir(DIR)) if n.endswith(".meta")]
                entries = []
                for n in names:
                    entries.append('{ "name":"%s", "type":"file" }' % n)
                    entries.append('{ "name":"%s.jpg", "type":"file" }' % n[:64])
                return self.send_body(200, ("[\n" + ",\n".join(entries) + "\n]\n").encode(), "application/json")
            if name.endswith(".meta") and os.path.isfile(os.path.join(DIR, name)):
                with open(os.path.join(DIR, name), "rb") as f:
                    return self.send_body(200, f.read())
            meta = os.path.join(DIR, name[:64] + ".meta")
            if len(name) > 64 and os.path.isfile(meta):
                size = meta_bytes(meta)
                self.send_response(200)
                self.send_header("Content-Length", str(size))
                self.end_headers()
                chunk = bytes(1 << 20)
                left = size
                try:
                    while left > 0:
                        n = min(left, len(chunk))
                        self.wfile.write(chunk[:n])
                        left -= n
                except OSError:
                    pass
                return
        if MODE == "speculative":
            if name.endswith(".meta"):
                with open(os.path.join(DIR, "meta")) as f:
                    how = f.read().strip()
                if how == "absent":
                    return self.send_body(404, b"")
                if how == "fail":
                    return self.send_body(500, b"")
                with open(os.path.join(DIR, "template")) as f:
                    return self.send_body(200, f.read().replace("KEY", name[:64]).encode())
            self.send_response(200)
            self.send_header("Content-Length", "1000000000")
            self.end_headers()
            chunk = bytes(1 << 20)
            try:
                for _ in range(1000):
                    self.wfile.write(chunk)
                    time.sleep(0.02)
            except OSError:
                pass
            return
        if MODE == "big-listing":
            if path.endswith("/"):
                return self.send_listing()
            if name and os.path.isfile(os.path.join(DIR, name)):
                with open(os.path.join(DIR, name), "rb") as f:
                    return self.send_body(200, f.read())
        self.send_body(404, b"")

    def send_listing(self):
        # Chunked, as nginx sends an autoindex: written as it is made, never held whole.
        with open(os.path.join(DIR, "filler")) as f:
            filler = int(f.read().strip())
        real = [n for n in sorted(os.listdir(DIR)) if len(n) > 64 and n[64] == "."]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def chunk(data):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

        mtime = '"mtime":"Tue, 01 Dec 2026 12:00:00 GMT"'
        chunk(b"[\n")
        for n in real:
            chunk(('{ "name":"%s", "type":"file", %s, "size":1 },\n' % (n, mtime)).encode())
        batch = []
        for i in range(filler):
            batch.append('{ "name":"filler-%0200d.bin", "type":"file", %s, "size":1 },\n' % (i, mtime))
            if len(batch) == 1000:
                chunk("".join(batch).encode())
                batch = []
        batch.append('{ "name":"last", "type":"file", %s, "size":1 }\n]\n' % mtime)
        chunk("".join(batch).encode())
        self.wfile.write(b"0\r\n\r\n")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
