#!/usr/bin/env python3
"""Runs imgfetch's RFC 9111 conformance scenarios (cases.py) against the built binary and prints the
pass rates by group, for the suite's required tests and for the others (optimal and check).

Usage: conformance.py [--binary PATH] [--jobs N] [--verbose] [--only ID,...] [--strict]

cases.PROBES (behaviours outside the suite) run too and are counted apart.
Each case gets its own cache directory and its own scripted path on one e2e server
(Tests/Support/e2e_server.py, on 127.0.0.1); every step runs `imgfetch get URL --json -o FILE`.
--strict exits 1 when a case listed as passing (not in cases.KNOWN_FAILURES) fails, or a known
failure passes (then the list is out of date): what `make test` runs.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cases  # noqa: E402

SERVED = ("hit", "stale", "derived")


class Server:
    def __init__(self):
        script = os.path.join(ROOT, "Tests", "Support", "e2e_server.py")
        self.proc = subprocess.Popen([sys.executable, script, os.path.join(ROOT, "Tests", "Fixtures")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.port = int(self.proc.stdout.readline())
        self.base = "http://127.0.0.1:%d" % self.port

    def set_step(self, script_id, step):
        config = {k: step[k] for k in ("headers", "status", "body", "disconnect", "validate")}
        req = urllib.request.Request(self.base + "/__script?id=" + script_id, data=json.dumps(config).encode(),
                                     method="POST")
        urllib.request.urlopen(req, timeout=10).read()

    def requests(self, script_id):
        with urllib.request.urlopen(self.base + "/__script?id=" + script_id, timeout=10) as r:
            return json.loads(r.read())["requests"]

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def run_case(server, binary, case):
    test_id, kind, group, steps = case
    cache_dir = tempfile.mkdtemp(prefix="imgfetch-conf-")
    try:
        for number, step in enumerate(steps, 1):
            server.set_step(test_id, step)
            before = len(server.requests(test_id))
            query = "q=first"
            args = []
            for a in step["args"]:
                if a.startswith("@query="):
                    query = a[len("@query="):]
                else:
                    args.append(a)
            url = "%s/script/%s?%s" % (server.base, test_id, query)
            out = os.path.join(cache_dir, "out")  # no extension: the image as the server sent it
            proc = subprocess.run([binary, "get", url, "--json", "--cache-dir", os.path.join(cache_dir, "c"), "-o", out,
                                   "--connect-timeout", "5", "--timeout", "20"] + args,
                                  capture_output=True, text=True, timeout=60)
            record = {}
            for line in proc.stdout.splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    pass
            new = server.requests(test_id)[before:]
            expect = step["expect"]
            if expect is not None:
                verdict = judge(expect, step, record, new, proc.returncode)
                if verdict is not None:
                    return (False, "step %d: expected %s, %s" % (number, expect, verdict))
            if step["pause"]:
                time.sleep(cases.PAUSE if step["pause"] is True else float(step["pause"]))
        return (True, "")
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)


def judge(expect, step, record, new, code):
    """None when the step did what was expected, else what happened instead."""
    ok = record.get("status") == "ok"
    state = record.get("cache")
    seen = "exit %d, cache %s, %d request(s) to the server" % (code, state, len(new))
    if record.get("error"):
        seen += ", error %s" % record["error"].get("code")
    if expect == "cached":
        if ok and state in SERVED:
            return None
        # A response that is not an image: scored by the server's request count (the cached failure, told again).
        code_of = (record.get("error") or {}).get("code")
        not_image = step["status"] >= 300 and step["status"] != 304
        return None if not_image and not new and not ok and code_of == "http_status" else seen
    if expect == "not_cached":
        return None if new and not (ok and state in SERVED) else seen
    if expect in ("etag", "lm"):
        field = "if-none-match" if expect == "etag" else "if-modified-since"
        conditional = [r for r in new if field in r]
        if not conditional:
            return seen + ", none with %s" % field
        if step["request_if"] is not None and conditional[-1][field] != step["request_if"]:
            return seen + ", %s: %s" % (field, conditional[-1][field])
        return None if ok and state == "revalidated" else seen
    if expect == "failed":
        return None if code != 0 and not ok else seen
    if expect == "failed_unsent":
        return None if code != 0 and not new else seen
    return "unknown expectation"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "imgfetch"))
    parser.add_argument("--jobs", type=int, default=12)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--only", default="")
    parser.add_argument("--strict", action="store_true")
    opts = parser.parse_args()
    if not os.access(opts.binary, os.X_OK):
        sys.stderr.write("conformance: no imgfetch binary at %s (build first)\n" % opts.binary)
        return 2
    selected = [c for c in cases.CASES + cases.PROBES if not opts.only or c[0] in opts.only.split(",")]
    server = Server()
    try:
        with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
            outcomes = list(pool.map(lambda c: run_case(server, opts.binary, c), selected))
    finally:
        server.stop()

    groups = {}
    problems = []
    probes = [0, 0]
    for (test_id, kind, group, _), (passed, why) in zip(selected, outcomes):
        if kind == "probe":
            probes[1] += 1
            probes[0] += 1 if passed else 0
            if opts.verbose or not passed:
                print("%-4s %-9s %-48s %s" % ("pass" if passed else "FAIL", kind, test_id, why))
            if not passed:
                problems.append("%s failed: %s" % (test_id, why))
            continue
        g = groups.setdefault(group, {"required": [0, 0], "other": [0, 0]})
        bucket = g["required" if kind == "required" else "other"]
        bucket[1] += 1
        bucket[0] += 1 if passed else 0
        known = cases.KNOWN_FAILURES.get(test_id)
        mark = "pass" if passed else "FAIL"
        if opts.verbose or not passed:
            note = why if not passed else ""
            if known and not passed:
                note += "  [known: %s]" % known
            print("%-4s %-9s %-48s %s" % (mark, kind, test_id, note))
        if not passed and not known:
            problems.append("%s failed: %s" % (test_id, why))
        if passed and known:
            problems.append("%s passes but is listed in KNOWN_FAILURES" % test_id)

    def rate(p, t):
        return "%3d/%-3d %5.1f%%" % (p, t, 100.0 * p / t) if t else "  -/-          "

    print()
    print("%-14s %-18s %-18s %-18s" % ("group", "required", "optional+check", "all"))
    total = {"required": [0, 0], "other": [0, 0]}
    for name in sorted(groups):
        g = groups[name]
        for k in total:
            total[k][0] += g[k][0]
            total[k][1] += g[k][1]
        print("%-14s %-18s %-18s %-18s" % (name, rate(*g["required"]), rate(*g["other"]),
                                            rate(g["required"][0] + g["other"][0], g["required"][1] + g["other"][1])))
    print("%-14s %-18s %-18s %-18s" % ("total", rate(*total["required"]), rate(*total["other"]),
                                        rate(total["required"][0] + total["other"][0],
                                             total["required"][1] + total["other"][1])))
    if probes[1]:
        print("%-14s %s   (issue 10's probes, outside the suite)" % ("probes", rate(*probes)))
    if opts.strict and problems:
        print()
        for p in problems:
            print("conformance: " + p)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
