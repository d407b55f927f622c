"""The fixture routes of the test server (e2e_server.py, which documents them): /img/NAME and what
its query changes (cut, pad, validators, Range, trickle, ...), /script/ID, and the state they share
with the server's other routes (the lock, the request counters, the scripts, the fixtures read)."""

import base64
import email.utils
import hashlib
import os
import threading
import time

CONTENT_TYPES = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".avif": "image/avif",
    ".tiff": "image/tiff",
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}

FIXTURES = ""     # the fixtures directory (set by e2e_server.main)
LOCK = threading.Lock()
STATS = {"total": 0, "paths": {}, "log": []}
FLAKY = {}
FILE_CACHE = {}  # name -> (bytes, etag, last_modified_ts)
SCRIPTS = {}     # id -> {"step": {...}, "requests": [headers, ...]}
POLICY = {}      # "/robots.txt" or "/.well-known/tdmrep.json" -> (status, body bytes)


def tiff(width, height, rgb):
    """An uncompressed RGB baseline TIFF of one colour: two colours give two files of one length
    (two versions of a file that a resume must never join)."""
    pixels = bytes(rgb) * (width * height)
    entries = [(256, 3, 1, width), (257, 3, 1, height), (258, 3, 3, 8 + 2 + 12 * 11 + 4),
               (259, 3, 1, 1), (262, 3, 1, 2), (273, 4, 1, 8 + 2 + 12 * 11 + 4 + 6),
               (277, 3, 1, 3), (278, 3, 1, height), (279, 4, 1, len(pixels)), (284, 3, 1, 1),
               (339, 3, 1, 1)]
    ifd = len(entries).to_bytes(2, "little")
    for tag, kind, count, value in entries:
        ifd += tag.to_bytes(2, "little") + kind.to_bytes(2, "little") + count.to_bytes(4, "little")
        ifd += value.to_bytes(2, "little") + b"\0\0" if kind == 3 else value.to_bytes(4, "little")
    ifd += b"\0\0\0\0"
    return b"II*\0" + (8).to_bytes(4, "little") + ifd + b"\x08\0\x08\0\x08\0" + pixels


# Made, not read: the two versions of one 320x240 TIFF (ResumeValidatorTests).
MADE = {"red.tiff": (255, 0, 0), "blue.tiff": (0, 0, 255)}


def load_fixture(name):
    if name in MADE:
        with LOCK:
            cached = FILE_CACHE.get(name)
        if cached is None:
            data = tiff(320, 240, MADE[name])
            cached = (data, '"%s"' % hashlib.sha1(data).hexdigest(), int(time.time()) - 86400)
            with LOCK:
                FILE_CACHE[name] = cached
        return cached
    if not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    path = os.path.join(FIXTURES, name)
    if not os.path.isfile(path):
        return None
    with LOCK:
        cached = FILE_CACHE.get(name)
    if cached is None:
        with open(path, "rb") as f:
            data = f.read()
        etag = '"%s"' % hashlib.sha1(data).hexdigest()
        mtime = int(os.path.getmtime(path))
        cached = (data, etag, mtime)
        with LOCK:
            FILE_CACHE[name] = cached
    return cached


def digests(query, whole, sent):
    """RFC 9530 fields: ?digest=repr,content sends Repr-Digest (sha-256 of the whole
    representation) and/or Content-Digest (of the bytes this response carries); &baddigest=1 makes
    each wrong; &digestalg=sha-512 uses SHA-512."""
    alg = query.get("digestalg", "sha-256")
    fields = []
    for kind in query["digest"].split(","):
        body = whole if kind == "repr" else sent
        value = hashlib.new(alg.replace("-", ""), body).digest()
        if query.get("baddigest") == "1":
            value = bytes([value[0] ^ 1]) + value[1:]
        name = "Repr-Digest" if kind == "repr" else "Content-Digest"
        fields.append((name, "%s=:%s:" % (alg, base64.b64encode(value).decode())))
    return fields


def pad_jpeg(data, extra):
    """`data` (a JPEG) with comment segments of about `extra` bytes in all after its SOI."""
    pieces = [data[:2]]
    while extra > 0:
        n = min(extra, 65533)
        pieces.append(b"\xff\xfe" + (n + 2).to_bytes(2, "big") + b"p" * n)
        extra -= n + 4
    pieces.append(data[2:])
    return b"".join(pieces)


class FixtureRoutes:
    """Mixed into e2e_server.Handler (a BaseHTTPRequestHandler with send_body and send_text)."""

    def serve_script(self, script_id):
        headers = {k.lower(): v for k, v in self.headers.items()}
        with LOCK:
            script = SCRIPTS.get(script_id)
            if script is not None:
                script["requests"].append(headers)
            step = script["step"] if script else None
        if step is None:
            return self.send_text(404, "no script for %s\n" % script_id)
        if step.get("disconnect"):
            self.close_connection = True
            self.connection.shutdown(2)
            return
        now = time.time()
        fields = []
        for name, value in step.get("headers", []):
            if isinstance(value, (int, float)):
                value = email.utils.formatdate(now + value, usegmt=True)
            fields.append((name, value))
        status = int(step.get("status", 200))
        if step.get("validate"):
            etag = next((v for n, v in fields if n.lower() == "etag"), None)
            lm = next((v for n, v in fields if n.lower() == "last-modified"), None)
            if (etag is not None and headers.get("if-none-match") == etag) or \
               (lm is not None and headers.get("if-modified-since") == lm):
                status = 304
        if step.get("body", "image") == "image":
            body, content_type = load_fixture("tiny.jpg")[0], "image/jpeg"
        else:
            body, content_type = b"not an image\n", "text/plain"
        self.send_response_only(status)
        for name, value in fields:
            self.send_header(name, value)
        if status == 304:
            self.end_headers()
            return
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()

    def serve_image(self, name, query):
        fixture = load_fixture(name)
        if fixture is None:
            return self.send_text(404, "no such fixture: %s\n" % name)
        data, etag, mtime = fixture
        if "needcookie" in query:
            cookies = [c.strip() for c in self.headers.get("Cookie", "").split(";")]
            if query["needcookie"] + "=set-by-server" not in cookies:
                return self.send_text(403, "log in first\n")
        if "cut" in query:
            data = data[:len(data) * int(query["cut"]) // 100] + (b"\xff\xd9" if query.get("eoi") == "1" else b"")
            etag = '"cut-%s-%s"' % (query["cut"], query.get("eoi", "0"))
        if "pad" in query and data[:2] == b"\xff\xd8":
            data = pad_jpeg(data, int(query["pad"]))
            etag = '"pad-%s-%s"' % (query["pad"], etag.strip('"'))
        ext = os.path.splitext(name)[1].lower()
        content_type = CONTENT_TYPES.get(ext, "application/octet-stream")
        last_modified = email.utils.formatdate(mtime, usegmt=True)
        if "etag" in query:
            etag = query["etag"]
        if "lm" in query:
            last_modified = query["lm"]

        first = True
        if "id" in query:
            with LOCK:
                seen = FLAKY.get("id:" + query["id"], 0)
                FLAKY["id:" + query["id"]] = seen + 1
            first = seen == 0
            if not first and "etag2" in query:
                etag = query["etag2"]
            if not first and "then" in query:
                changed = load_fixture(query["then"])
                if changed is None:
                    return self.send_text(404, "no such fixture: %s\n" % query["then"])
                data = changed[0]
        headers = [("ETag", etag), ("Last-Modified", last_modified)]
        if query.get("noval") == "1":
            headers = []
        if query.get("noetag") == "1":
            headers = [("Last-Modified", last_modified)]
        if "cc" in query:
            headers.append(("Cache-Control", query["cc"]))
        if "vary" in query:
            headers.append(("Vary", query["vary"]))
        if "setcookie" in query:
            headers.append(("Set-Cookie", query["setcookie"] + "=set-by-server; Path=/"))
        for key, name in (("xrobots", "X-Robots-Tag"), ("tdm", "tdm-reservation"), ("usage", "Content-Usage")):
            if key in query:
                headers.append((name, query[key]))
        if query.get("expires") == "now":
            headers.append(("Expires", email.utils.formatdate(time.time() - 3600, usegmt=True)))

        if query.get("no304") != "1" and self.not_modified(etag, mtime):
            self.send_response(304)
            if query.get("bare304") == "1":
                headers = headers[:2]
            for key, value in headers:
                self.send_header(key, value)
            self.end_headers()
            return

        status = 200
        whole = data
        wanted = self.headers.get("Range", "")
        if wanted.startswith("bytes=") and wanted.endswith("-") and wanted[6:-1].isdigit():
            if_range = self.headers.get("If-Range")
            if if_range is None or (if_range in (etag, last_modified) and headers) or query.get("ignoreifrange") == "1":
                start = int(wanted[6:-1])
                if start >= len(data):
                    return self.send_text(416, "range not satisfiable\n",
                                          headers=[("Content-Range", "bytes */%d" % len(data))])
                total = query.get("crtotal", str(len(data)))
                if query.get("no206validators") == "1":
                    headers = [h for h in headers if h[0] not in ("ETag", "Last-Modified")]
                headers.append(("Content-Range", "bytes %d-%d/%s" % (start, len(data) - 1, total)))
                whole = data
                data = data[start:]
                status = 206
        if "digest" in query and (first or query.get("digestafter") != "1"):
            headers += digests(query, whole if status == 206 else data, data)
        short = int(query["short"]) if "short" in query else None
        if "drop" in query and first:
            short = len(data) * int(query["drop"]) // 100
        self.send_body(status, data, content_type, headers=headers,
                       chunked=query.get("chunked") == "1",
                       trickle_ms=float(query.get("trickle", "0")),
                       short=short)

    def not_modified(self, etag, mtime):
        inm = self.headers.get("If-None-Match")
        if inm is not None:
            tags = [t.strip() for t in inm.split(",")]
            return "*" in tags or etag in tags or ("W/" + etag) in tags
        ims = self.headers.get("If-Modified-Since")
        if ims is not None:
            try:
                since = email.utils.parsedate_to_datetime(ims).timestamp()
            except (TypeError, ValueError, IndexError):
                return False
            return mtime <= since
        return False
