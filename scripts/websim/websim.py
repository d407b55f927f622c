#!/usr/bin/env python3
"""The simulated web's harness, run inside its own network namespace by websim.sh: starts the
server, writes the list, runs imgfetch (8 shards of --shard-dir --shard-tar on one cache, with
--no-keep-original: the resized images alone, as img2dataset writes them) and then img2dataset on the
same web, and prints each side's figures.

Environment: WEBSIM_IMGFETCH (the binary), WEBSIM_PYTHON (the venv's python, img2dataset's),
WEBSIM_DIR (work directory), WEBSIM_LINES (default 20000), WEBSIM_SHARDS (8), WEBSIM_TIMEOUT (10),
WEBSIM_SIDES (imgfetch,img2dataset), WEBSIM_PROFILES (the origins' kinds kept, profiles.py).
"""
import ctypes
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import threading
import time
import urllib.request

import profiles

HERE = os.path.dirname(os.path.abspath(__file__))
PORT, HOLE = 8080, 8081


def env(name, default):
    return os.environ.get(name) or default


class TreeSampler:
    """Peak resident memory of every process below this one (sum of their RSS), sampled every 0.2 s."""

    def __init__(self, exclude):
        self.exclude = set(exclude)
        self.peak = 0
        self.running = True
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def tree_rss(self, with_pids=False):
        parents, rss = {}, {}
        page = os.sysconf("SC_PAGE_SIZE")
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                parents[int(d)] = int(fields[1])
                rss[int(d)] = int(fields[21]) * page
            except (OSError, IndexError, ValueError):
                pass
        me, total, pids = os.getpid(), 0, []
        for pid in rss:
            p, seen = pid, 0
            while p in parents and p != me and seen < 64:
                if p in self.exclude:
                    break
                p, seen = parents[p], seen + 1
            if p == me and pid != me and pid not in self.exclude:
                total += rss[pid]
                pids.append(pid)
        return pids if with_pids else total

    def loop(self):
        while self.running:
            self.peak = max(self.peak, self.tree_rss())
            time.sleep(0.2)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.peak


def control(path):
    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (PORT, path), timeout=30) as r:
        return r.read()


def run_side(name, commands, server_pid, cwd):
    """Runs `commands` at once; wall seconds, CPU seconds of the whole tree, peak RSS, server stats, end time."""
    control("/__reset")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    sampler = TreeSampler([server_pid])
    start = time.time()
    procs = [subprocess.Popen(c, cwd=cwd, stdout=subprocess.DEVNULL, stderr=open(os.path.join(cwd, "%s-%d.err" % (name, i)), "w"),
                              start_new_session=True)
             for i, c in enumerate(commands)]
    # A side still running HANG_AFTER seconds after the last request any origin received hangs: its
    # process groups are killed and the hang recorded.
    hang_after = float(env("WEBSIM_HANG_AFTER", "120"))
    hung = None
    while any(p.poll() is None for p in procs):
        time.sleep(1)
        last = float(control("/__last"))
        quiet = time.time() - max(last, start)
        if quiet > hang_after:
            hung = quiet
            for p in procs:
                if p.poll() is None:
                    try:
                        os.killpg(p.pid, 9)
                    except ProcessLookupError:
                        pass
    codes = [p.wait() for p in procs]
    # A killed side's workers were orphaned to this subreaper: reaped here, their CPU counts too.
    deadline = time.time() + 10
    while sampler.tree_rss(with_pids=True) and time.time() < deadline:
        try:
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        time.sleep(0.05)
    end = time.time()
    peak = sampler.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    stats = json.loads(control("/__stats"))
    return {"wall": end - start, "cpu": cpu, "peak_rss": peak, "stats": stats, "end": end, "codes": codes, "hung": hung}


def web_figures(stats, origins):
    """Requests per origin against what each profile allows, robots.txt fetches per origin."""
    per = stats["origins"]
    over, worst, throttlers, example = 0, 0.0, 0, ""
    for key, s in per.items():
        kind = profiles.profile(int(key))
        if kind not in ("throttle_retry_after", "throttle_bare"):
            continue
        throttlers += 1
        log = sorted(s["log"])
        first = next((t for t, status in log if status == 429), None)
        # After its first 429: the most requests that arrived in any 1-second window.
        times = [t for t, _ in log if first is not None and t > first]
        peak, j = 0, 0
        for i, t in enumerate(times):
            while times[j] < t - 1.0:
                j += 1
            peak = max(peak, i - j + 1)
        if peak > worst:
            example = "origin %s (%s): %s" % (key, kind, " ".join("%+.2f:%d" % (t - first, status) for t, status in log))
        worst = max(worst, peak)
        if peak > profiles.ALLOWED_RATE:
            over += 1
    asked = [int(k) for k in per]
    # Once per origin whose robots.txt answered; a 5xx one again after UNAVAILABLE_KEPT at the earliest.
    robots = [per[k]["robots"] for k in per if profiles.profile(int(k)) != "robots_5xx"]
    gaps = [b - a for k in per if profiles.profile(int(k)) == "robots_5xx"
            for a, b in zip(sorted(per[k]["robots_times"]), sorted(per[k]["robots_times"])[1:])]
    most = max((s["requests"] for s in per.values()), default=0)
    return {
        "throttlers": throttlers, "throttlers_over_rate": over, "worst_rate": worst, "worst_example": example,
        "origins_asked": len(asked), "origins": origins, "most_requests_origin": most,
        "robots_max": max(robots, default=0), "robots_origins_not_1": sum(1 for r in robots if r != 1), "robots_answered": len(robots),
        "robots_5xx_refetches": len(gaps), "robots_5xx_shortest_gap": min(gaps, default=None),
        "requests": sum(s["requests"] for s in per.values()),
        "statuses": {code: sum(s["statuses"].get(code, 0) for s in per.values()) for code in ("200", "302", "404", "429", "503")},
        "last_request": stats["last"],
    }


def imgfetch_side(work, listfile, lines, server_pid):
    binary = env("WEBSIM_IMGFETCH", "imgfetch")
    shards = int(env("WEBSIM_SHARDS", "8"))
    timeout = env("WEBSIM_TIMEOUT", "10")
    out = os.path.join(work, "imgfetch")
    os.makedirs(out)
    cache = os.path.join(out, "cache")
    commands = [[binary, "prefetch", listfile, "--shard", "%d/%d" % (k, shards), "--shard-dir", os.path.join(out, "shards"),
                 "--shard-tar", "--cache-dir", cache, "-s", "320x320", "-q", "75", "-f", "jpeg", "--no-keep-original", "--timeout", timeout,
                 "--connect-timeout", timeout, "--retry", "1", "--no-progress", "--quiet"] for k in range(1, shards + 1)]
    r = run_side("imgfetch", commands, server_pid, out)
    records = []
    for path in glob.glob(os.path.join(out, "shards", "*.ndjson")):
        with open(path) as f:
            records += [json.loads(line) for line in f if line.strip()]
    skips = {}
    for rec in records:
        if rec.get("status") == "skipped":
            skip = rec.get("skip") if isinstance(rec.get("skip"), dict) else {}
            why = "%s %s" % (skip.get("cause", "?"), skip.get("rule", ""))
            skips[why.strip()] = skips.get(why.strip(), 0) + 1
    r["ok"] = sum(1 for rec in records if rec.get("status") == "ok")
    r["records"] = len(records)
    r["skips"] = skips
    return r


def img2dataset_side(work, listfile, lines, server_pid):
    python = env("WEBSIM_PYTHON", sys.executable)
    shards = int(env("WEBSIM_SHARDS", "8"))
    out = os.path.join(work, "img2dataset")
    os.makedirs(out)
    per_shard = max(1, -(-lines // shards))
    command = [os.path.join(os.path.dirname(python), "img2dataset"), "--url_list", listfile, "--input_format", "txt",
               "--output_folder", os.path.join(out, "data"), "--output_format", "webdataset", "--processes_count", str(shards),
               "--thread_count", "8", "--number_sample_per_shard", str(per_shard), "--image_size", "320", "--resize_mode", "keep_ratio",
               "--encode_format", "jpg", "--encode_quality", "75", "--timeout", env("WEBSIM_TIMEOUT", "10"), "--retries", "1",
               "--enable_wandb", "False"]
    os.environ["NO_ALBUMENTATIONS_UPDATE"] = "1"
    r = run_side("img2dataset", [command], server_pid, out)
    ok = count = 0
    skips = {}
    for path in glob.glob(os.path.join(out, "data", "*_stats.json")):
        with open(path) as f:
            s = json.load(f)
        ok += s.get("successes", 0)
        count += s.get("count", 0)
        for message, n in (s.get("status_dict") or {}).items():
            if "disallowed" in message.lower() or "x-robots-tag" in message.lower():
                skips[message] = skips.get(message, 0) + n
    if r["hung"] is not None:
        # Its shards never ended, so no _stats.json: the images its tars hold so far.
        for path in glob.glob(os.path.join(out, "data", "*.tar")):
            try:
                with tarfile.open(path) as tar:
                    for member in tar:
                        ok += member.name.endswith(".jpg")
            except (tarfile.TarError, OSError):
                pass
    r["ok"] = ok
    r["records"] = count
    r["skips"] = skips
    return r


def expected_skips(listfile):
    """The skips the profiles call for: a robots_disallow origin's /private/ lines, and every line of an
    opt_out origin by the header its image is sent with (as server.py picks it)."""
    out = {}
    with open(listfile) as f:
        for url in f:
            host, path = url.strip().split("/", 3)[2], "/" + url.strip().split("/", 3)[3]
            kind = profiles.profile(profiles.number(host.split(":")[0]) or 0)
            if kind == "robots_disallow" and path.startswith("/private/"):
                why = "robots disallow: /private/"
            elif kind == "opt_out":
                why = "opt_out %s: %s" % profiles.OPT_OUT_HEADERS[sum(path.encode()) % len(profiles.OPT_OUT_HEADERS)]
            else:
                continue
            out[why] = out.get(why, 0) + 1
    return out


def main():
    work = os.path.abspath(env("WEBSIM_DIR", ".build/websim"))
    lines = int(env("WEBSIM_LINES", "20000"))
    origins = max(1, lines // 10)
    os.makedirs(work, exist_ok=True)
    # The previous run's outputs are moved aside now and deleted only after both sides ran: deleting
    # thousands of files just before a side starts would bill that side for the file system's work
    # (an ext4 without a journal scans its recently deleted inodes on every file created for ~30 s).
    trash = os.path.join(work, ".previous-%d" % os.getpid())
    for side in ("imgfetch", "img2dataset"):
        if os.path.exists(os.path.join(work, side)):
            os.makedirs(trash, exist_ok=True)
            os.rename(os.path.join(work, side), os.path.join(trash, side))
    # PR_SET_CHILD_SUBREAPER: the workers of a side killed for hanging are reaped here (their CPU time
    # then counts in RUSAGE_CHILDREN).
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    python = env("WEBSIM_PYTHON", sys.executable)
    server = subprocess.Popen([python, os.path.join(HERE, "server.py"), str(PORT), str(HOLE)], stdout=subprocess.PIPE)
    if server.stdout.readline().strip() != b"ready":
        sys.exit("websim: the server did not start")
    listfile = os.path.join(work, "list.txt")
    subprocess.run([sys.executable, os.path.join(HERE, "makelist.py"), str(lines), str(PORT), str(HOLE), listfile], check=True)
    kinds = {}
    for n in range(1, origins + 1):
        kinds[profiles.profile(n)] = kinds.get(profiles.profile(n), 0) + 1
    print("websim: %d lines over %d origins (%s)" % (lines, origins, ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
    results = {}
    try:
        for side in env("WEBSIM_SIDES", "imgfetch,img2dataset").split(","):
            run = imgfetch_side if side == "imgfetch" else img2dataset_side
            r = run(work, listfile, lines, server.pid)
            r["web"] = web_figures(r.pop("stats"), origins)
            results[side] = r
            print("websim: %s done in %.1f s (exit %s)" % (side, r["wall"], sorted(set(r["codes"]))), flush=True)
            if r["web"]["worst_example"]:
                print("websim: %s's busiest throttling origin, seconds from its first 429:status: %s" % (side, r["web"]["worst_example"]))
    finally:
        server.terminate()
        for old in glob.glob(os.path.join(work, ".previous-*")):   # this run's, and an interrupted one's
            shutil.rmtree(old, ignore_errors=True)
    rows = [
        ("wall time (s)", lambda r: "%.1f" % r["wall"]),
        ("CPU seconds (process tree)", lambda r: "%.1f" % r["cpu"]),
        ("images ok (a hung side: in its tars)", lambda r: str(r["ok"])),
        ("images per CPU-second", lambda r: "%.1f" % (r["ok"] / r["cpu"] if r["cpu"] else 0)),
        ("peak RSS of the tree (MiB)", lambda r: "%.0f" % (r["peak_rss"] / 1048576)),
        ("records / lines", lambda r: "%d / %d" % (r["records"], lines)),
        ("requests (all origins)", lambda r: str(r["web"]["requests"])),
        ("statuses sent 200/302/404/429/503", lambda r: "/".join(str(v) for v in r["web"]["statuses"].values())),
        ("throttling origins above %d req/s after a 429" % profiles.ALLOWED_RATE, lambda r: "%d of %d (worst %d in 1 s)" % (r["web"]["throttlers_over_rate"], r["web"]["throttlers"], r["web"]["worst_rate"])),
        ("most requests to one origin", lambda r: str(r["web"]["most_requests_origin"])),
        ("robots.txt fetches per origin (max; origins not 1)", lambda r: "%d; %d of %d" % (r["web"]["robots_max"], r["web"]["robots_origins_not_1"], r["web"]["robots_answered"])),
        ("5xx robots.txt asked again (shortest gap, s)", lambda r: "%d (%s)" % (r["web"]["robots_5xx_refetches"], "-" if r["web"]["robots_5xx_shortest_gap"] is None else "%.0f" % r["web"]["robots_5xx_shortest_gap"])),
        ("last request received -> run end (s)", lambda r: "%.1f" % (r["end"] - r["web"]["last_request"]) if r["web"]["last_request"] else "-"),
        ("hung (killed after no request for)", lambda r: "%.0f s" % r["hung"] if r["hung"] is not None else "no"),
        ("skips by directive", lambda r: ", ".join("%s %d" % kv for kv in sorted(r["skips"].items())) or "0"),
    ]
    print("websim: skips the profiles call for: %s" % ", ".join("%s %d" % kv for kv in sorted(expected_skips(listfile).items())))
    sides = list(results)
    width = max(len(label) for label, _ in rows)
    print("%-*s  %s" % (width, "", "  ".join("%-22s" % s for s in sides)))
    for label, figure in rows:
        print("%-*s  %s" % (width, label, "  ".join("%-22s" % figure(results[s]) for s in sides)))
    if len(sides) == 2 and all(results[s]["cpu"] and results[s]["ok"] for s in sides):
        a, b = (results[s]["ok"] / results[s]["cpu"] for s in sides)
        print("imgfetch / img2dataset images per CPU-second: %.2fx" % (a / b))


if __name__ == "__main__":
    main()
