#!/usr/bin/env python3
"""The simulated web: one asyncio process answering every origin of 127.0.0.0/8.

Usage: server.py PORT BLACKHOLE_PORT

A wildcard listener on 0.0.0.0:PORT answers every 127.x.y.z and tells the origin by getsockname;
a second listener on 0.0.0.0:BLACKHOLE_PORT is never accepted from (backlog 1): its accept queue is
kept full, so connections to it time out. Prints "ready" when listening. GET /__stats on 127.0.0.1
gives JSON of what every origin was asked, /__last the time of the last request; /__reset clears them.
"""
import asyncio
import json
import socket
import sys
import time

import cv2
import numpy as np

import profiles

STATS = {}          # origin number -> {"requests", "robots", "robots_times": [t...], "statuses": {code: n}, "times": [t...], "log": [[t, status]...]}
LAST = {"t": 0.0}   # the last request's arrival (not the control's)
TIMES_KEPT = 5000   # request times kept per origin (bounded)


def make_images():
    rng = np.random.default_rng(45)
    small = rng.integers(0, 255, (12, 16, 3), dtype=np.uint8)
    photo = cv2.resize(small, (1024, 768), interpolation=cv2.INTER_CUBIC)
    photo = cv2.add(photo, rng.integers(0, 24, photo.shape, dtype=np.uint8))
    graphic = cv2.resize(small, (800, 600), interpolation=cv2.INTER_NEAREST)
    out = {}
    out["jpg"] = ("image/jpeg", cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes())
    out["png"] = ("image/png", cv2.imencode(".png", graphic)[1].tobytes())
    out["webp"] = ("image/webp", cv2.imencode(".webp", photo, [cv2.IMWRITE_WEBP_QUALITY, 80])[1].tobytes())
    return out


IMAGES = make_images()


def stat(n):
    s = STATS.get(n)
    if s is None:
        s = STATS[n] = {"requests": 0, "robots": 0, "robots_times": [], "statuses": {}, "times": [], "log": []}
    return s


def response(status, headers, body):
    reason = {200: "OK", 302: "Found", 404: "Not Found", 429: "Too Many Requests", 503: "Service Unavailable"}.get(status, "X")
    head = ["HTTP/1.1 %d %s" % (status, reason), "Content-Length: %d" % len(body)]
    head += ["%s: %s" % kv for kv in headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def throttled(s, now):
    recent = [t for t in s["times"][-profiles.ALLOWED_RATE * 4:] if now - t < 1.0]
    return len(recent) > profiles.ALLOWED_RATE   # this request is already in times


async def answer(n, path, writer):
    """Writes the answer of origin n to GET path; False when the connection must close."""
    now = time.time()
    kind = profiles.profile(n)
    s = stat(n)
    s["requests"] += 1
    if len(s["times"]) < TIMES_KEPT:
        s["times"].append(now)
    LAST["t"] = now

    def send(status, headers=(), body=b"", close=False):
        s["statuses"][str(status)] = s["statuses"].get(str(status), 0) + 1
        if len(s["log"]) < TIMES_KEPT:
            s["log"].append([now, status])
        writer.write(response(status, list(headers) + ([("Connection", "close")] if close else []), body))
        return not close

    if path == "/robots.txt":
        s["robots"] += 1
        if len(s["robots_times"]) < TIMES_KEPT:
            s["robots_times"].append(now)
        if kind == "robots_disallow":
            return send(200, [("Content-Type", "text/plain")], b"User-agent: *\nDisallow: /private/\n")
        if kind == "robots_5xx":
            return send(503, [("Content-Type", "text/plain")], b"unavailable\n")
        return send(404, [("Content-Type", "text/plain")], b"no robots.txt\n")
    ext = path.rsplit(".", 1)[-1] if "." in path else ""
    if ext not in IMAGES:
        return send(404, [("Content-Type", "text/plain")], b"not found\n")
    ctype, body = IMAGES[ext]
    if kind == "slow_drip":
        s["statuses"]["200"] = s["statuses"].get("200", 0) + 1
        writer.write(("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (ctype, len(body))).encode())
        for i in range(len(body)):
            writer.write(body[i:i + 1])
            await writer.drain()
            await asyncio.sleep(profiles.DRIP_EVERY)
        return False
    if kind in ("throttle_retry_after", "throttle_bare") and throttled(s, now):
        extra = [("Retry-After", "2")] if kind == "throttle_retry_after" else []
        return send(429, [("Content-Type", "text/plain")] + extra, b"slow down\n")
    if kind == "flapping" and int(now / 2) % 2 == 0:
        return send(503, [("Content-Type", "text/plain")], b"flapping\n")
    if kind == "redirect" and path.startswith("/r/"):
        return send(302, [("Location", "/img/" + path[3:])], b"")
    headers = [("Content-Type", ctype)]
    if kind == "opt_out":
        key = sum(path.encode()) % len(profiles.OPT_OUT_HEADERS)
        headers.append(profiles.OPT_OUT_HEADERS[key])
    return send(200, headers, body)


async def serve(reader, writer):
    addr = writer.get_extra_info("sockname")[0]
    n = profiles.number(addr)
    try:
        while True:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
            if len(head) > 16384:
                break
            line = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            if len(line) != 3:
                break
            path = line[1].split("?", 1)[0]
            if n == 0:
                if path == "/__stats":
                    body = json.dumps({"origins": STATS, "last": LAST["t"]}).encode()
                    writer.write(response(200, [("Content-Type", "application/json"), ("Connection", "close")], body))
                elif path == "/__last":
                    writer.write(response(200, [("Connection", "close")], b"%.3f" % LAST["t"]))
                elif path == "/__reset":
                    STATS.clear()
                    LAST["t"] = 0.0
                    writer.write(response(200, [("Connection", "close")], b"reset\n"))
                else:
                    writer.write(response(404, [("Connection", "close")], b""))
                await writer.drain()
                break
            if n is None:
                break
            keep = await answer(n, path, writer)
            await writer.drain()
            if not keep:
                break
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()


async def main():
    port, blackhole_port = int(sys.argv[1]), int(sys.argv[2])
    hole = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    hole.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    hole.bind(("0.0.0.0", blackhole_port))
    hole.listen(1)   # never accepted: the queue stays full, later connects time out
    server = await asyncio.start_server(serve, "0.0.0.0", port, backlog=4096, limit=32768)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
