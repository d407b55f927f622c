"""The invariants of `scripts/faults.py`: what a round leaves is observed (`observe`, run where the
round's files are: inside its mount namespace for enospc and rocache) and judged (`check`, in the
suite's process, which also holds the origin's request log).

Which invariant applies after which stop is `TABLE`; `check_marker` is the one place that knows
what a shard marker vouches for (the man page's SHARDS and --shard-dir, as they are now)."""

import json
import os
import subprocess
import tarfile

GRACEFUL = ("sigint", "sigterm", "sighup", "stdout", "end")
HARD = ("kill9", "enospc", "rocache")
TABLE = {
    "exit": GRACEFUL + ("enospc", "rocache"),   # a documented status; never 132, 134, 139
    "verify": GRACEFUL + HARD,                  # `cache verify` clean right after the stop
    "remaining": GRACEFUL,                      # --save-remaining holds exactly the lines not done
    "tar-whole": GRACEFUL,                      # a tar under its name reads whole, every sample complete
    "tar-prefix": HARD,                         # a tar (also a temporary one) reads up to its last whole sample
    "marker": GRACEFUL + HARD,                  # a marker only beside the records and tar it vouches for
    "next-run": GRACEFUL + HARD,                # the next run completes (exit 0, every line delivered)
    "resume": GRACEFUL + HARD,                  # ... sending Range for each partial kept
    "tier": GRACEFUL + HARD,                    # a remote KEY.meta only beside its image (the commit)
}
DOCUMENTED = {"get": {0, 1, 2, 3, 4, 5, 6, 7, 129, 130, 143},
              "prefetch": {0, 1, 2, 3, 4, 129, 130, 141, 143}}
STOP_STATUS = {"sigint": 130, "sigterm": 143, "sighup": 129, "stdout": 141, "kill9": 137}


def parse_records(data):
    """The --json records of a run's stdout (a line cut by the stop is dropped)."""
    records = []
    for line in data.split(b"\n"):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and "status" in value:
            records.append(value)
    return records


def shell_status(rc):
    """A returncode as a shell reports it (killed by signal N: 128 + N)."""
    return 128 - rc if rc < 0 else rc


def shard_name(spec):
    return "%05d-of-%05d" % tuple(spec["shard"])


def read_tar(path, whole):
    """Reads a shard tar: (complete samples, error or None). A sample is KEY.jpg then KEY.json,
    adjacent: the image a JPEG of the record's bytes, the record an ok one. `whole`: any read
    error is an error; else the tar may end inside its last sample (a temporary tar cut short)."""
    samples, pending, error = [], None, None
    try:
        with tarfile.open(path, "r|") as tar:
            for member in tar:
                data = tar.extractfile(member).read() if member.isfile() else None
                if data is None or len(data) != member.size:
                    raise tarfile.ReadError("member %s cut short" % member.name)
                key, _, ext = member.name.partition(".")
                if pending is None:
                    if ext != "jpg" or not data.startswith(b"\xff\xd8"):
                        return samples, "member %s is not a sample's JPEG" % member.name
                    pending = (key, data)
                    continue
                if key != pending[0] or ext != "json":
                    return samples, "member %s does not follow %s.jpg" % (member.name, pending[0])
                record = json.loads(data)
                if record.get("status") != "ok" or record.get("bytes") != len(pending[1]):
                    return samples, "record %s does not describe its image" % member.name
                samples.append(record)
                pending = None
    except (tarfile.TarError, ValueError, OSError) as e:
        error = str(e)
    if whole and (error or pending is not None):
        return samples, error or "the tar ends inside sample %s" % pending[0]
    return samples, None


def observe_shard(spec, work):
    shards = os.path.join(work, "shards")
    name = shard_name(spec)
    obs = {"marker": None, "records": None, "tar": None, "temp_tars": []}
    if not os.path.isdir(shards):
        return obs
    marker = os.path.join(shards, name + ".stats.json")
    if os.path.exists(marker):
        try:
            with open(marker) as f:
                obs["marker"] = json.load(f)
        except ValueError as e:
            obs["marker"] = {"unreadable": str(e)}
    records = os.path.join(shards, name + ".ndjson")
    if os.path.exists(records):
        with open(records, "rb") as f:
            data = f.read()
        obs["records"] = parse_records(data)
        obs["records_lines"] = data.count(b"\n")
    for entry in sorted(os.listdir(shards)):
        if entry == name + ".tar":
            samples, error = read_tar(os.path.join(shards, entry), True)
            obs["tar"] = {"samples": [s.get("line") for s in samples], "error": error}
        elif entry.startswith(".tmp-"):
            path = os.path.join(shards, entry)
            with open(path, "rb") as f:
                head = f.read(1)
            if head in (b"", b"{"):
                continue   # records being written (complete or not, they are not a tar)
            samples, error = read_tar(path, False)
            obs["temp_tars"].append({"name": entry, "samples": len(samples), "error": error})
    return obs


def kept_partials(directory):
    """The lengths of the partials a next run resumes: KEY.part beside a KEY.pmeta (written last)
    whose length is the part's and whose validator is set (what PartialSlot.read accepts)."""
    lengths = []
    for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
        if not name.endswith(".pmeta"):
            continue
        try:
            with open(os.path.join(directory, name), "rb") as f:
                lines = f.read(4096).decode("utf-8", "replace").split("\n")
            size = os.path.getsize(os.path.join(directory, name[:-6] + ".part"))
        except OSError:
            continue
        fields = dict(line.partition(" ")[::2] for line in lines[1:] if " " in line)
        if lines[0] == "imgfetch-partial 2" and fields.get("validator") and fields.get("length") == str(size) and size > 0:
            lengths.append(size)
    return sorted(lengths)


def observe(spec, binary, work):
    """What a run left: `cache verify`'s verdict, the partials kept, the remaining file, the shard's
    files, get's output."""
    cache = os.path.join(work, "cache")
    verify = subprocess.run([binary, "cache", "verify", "--cache-dir", cache], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    obs = {"verify_rc": verify.returncode, "verify_out": verify.stdout.decode("utf-8", "replace")[-600:]}
    obs["partials"] = kept_partials(os.path.join(cache, "v1", "partial"))
    for key, name in (("left", "left.txt"), ("left2", "left2.txt")):
        path = os.path.join(work, name)
        obs[key] = open(path).read().splitlines() if os.path.exists(path) else None
    if spec["scenario"] in ("prefetch-shard", "prefetch-tar"):
        obs["shard"] = observe_shard(spec, work)
    out = os.path.join(work, "out.jpg")
    if os.path.exists(out):
        data = open(out, "rb").read()
        obs["out_ok"] = data.startswith(b"\xff\xd8") and data.endswith(b"\xff\xd9")
    return obs


def check_marker(spec, shard, run, lines):
    """A marker only beside the records and tar it vouches for (man: --shard-dir, SHARDS): present
    => the run that wrote it ended as a finished run (0, or 1 when lines failed, 4 when results
    could not be stored), its records hold one record per line of the shard, its tar (with
    --shard-tar) reads whole with one sample per ok record. A run stopped by a signal or a closed
    stdout leaves neither marker nor records. Returns the violations (strings)."""
    bad = []
    status = shell_status(run["rc"])
    marker = shard["marker"]
    if marker is None:
        if status in (129, 130, 141, 143) and run["stopped"] and shard["records"] is not None:
            bad.append("records %s.ndjson left by a stopped run (exit %d)" % (shard_name(spec), status))
        return bad
    if "unreadable" in marker:
        return ["marker unreadable: " + marker["unreadable"]]
    if run.get("wrote_marker") and status not in (0, 1, 4):
        bad.append("marker written by a run that exited %d" % status)
    records = shard["records"] or []
    numbers = sorted(r.get("line") for r in records)
    ok = [r.get("line") for r in records if r.get("status") == "ok"]
    if shard["records"] is None:
        bad.append("marker without its records file")
    elif len(set(numbers)) != len(numbers) or len(records) != shard.get("records_lines"):
        bad.append("records file: %d lines, %d records, lines %s" % (shard.get("records_lines"), len(records), numbers))
    elif marker.get("ok") != len(ok) or marker.get("ok", 0) + marker.get("failed", 0) != len(records):
        bad.append("marker ok %s failed %s, records %d (ok %d)" % (marker.get("ok"), marker.get("failed"), len(records), len(ok)))
    elif marker.get("total") != len(records) or len(records) + marker.get("skipped", 0) != len(lines):
        bad.append("marker total %s skipped %s, list %d lines, records %d" % (marker.get("total"), marker.get("skipped"), len(lines), len(records)))
    if spec["scenario"] == "prefetch-tar":
        tar = shard["tar"]
        if tar is None:
            bad.append("marker without its tar")
        elif tar["error"]:
            bad.append("tar beside the marker does not read whole: " + tar["error"])
        elif sorted(tar["samples"]) != sorted(ok):
            bad.append("tar samples %s, ok records %s" % (sorted(tar["samples"]), sorted(ok)))
    return bad


def ok_sources(records):
    return {r.get("original_source") for r in records if r.get("status") == "ok"}


def check(spec, obs, origin_port, rerun_requests, tier_names=()):
    """The violations of a round: (invariant, what happened), for the invariants TABLE applies to
    its stop. `rerun_requests`: the origin's log entries of the round since the next run began;
    `tier_names`: the names of the round's objects in the remote tier."""
    stop, bad = spec["stop"], []

    def violation(invariant, text):
        if stop in TABLE[invariant]:
            bad.append((invariant, text))

    if "setup_failed" in obs:
        return [("setup", obs["setup_failed"])]
    fault, rerun, after, final = obs["fault"], obs["rerun"], obs["after_fault"], obs["after_rerun"]
    command = "get" if spec["scenario"].startswith("get") else "prefetch"
    urls = ["http://127.0.0.1:%d%s" % (origin_port, p) for p in spec["paths"]]
    status = shell_status(fault["rc"])
    if fault["hung"]:
        violation("exit", "did not exit within %d s of the stop" % 120)
    elif fault["rc"] < 0 and not (stop == "kill9" and fault["rc"] == -9):
        violation("exit", "killed by signal %d (status %d)%s" % (-fault["rc"], status, tail(fault)))
    elif status in (132, 134, 139) or status not in DOCUMENTED[command]:
        violation("exit", "exit status %d%s" % (status, tail(fault)))
    elif fault["stopped"] and stop in STOP_STATUS and not (stop == "stdout" and command == "get") \
            and status not in (STOP_STATUS[stop], 0):
        violation("exit", "exit status %d after %s, not %d%s" % (status, stop, STOP_STATUS[stop], tail(fault)))
    elif stop == "end" and status != 0:
        violation("exit", "exit status %d of a run to its end%s" % (status, tail(fault)))
    if after["verify_rc"] != 0:
        violation("verify", "cache verify exit %d: %s" % (after["verify_rc"], after["verify_out"].strip()[-300:]))
    if final["verify_rc"] != 0:
        violation("next-run", "cache verify after the next run exit %d" % final["verify_rc"])

    shard_urls = set(urls)
    if "shard" in after:
        vouched = next((o["shard"]["records"] for o in (final, after) if o["shard"]["marker"]), None)
        shard_urls = {r.get("original_source") for r in vouched} if vouched is not None else None
        for text in check_marker(spec, after["shard"], dict(fault, wrote_marker=True), urls):
            violation("marker", text)
        tar = after["shard"]["tar"]
        if tar is not None and tar["error"]:
            violation("tar-whole" if stop in GRACEFUL else "tar-prefix", "tar under its name: " + tar["error"])
        for temp in after["shard"]["temp_tars"]:
            if temp["error"]:
                violation("tar-prefix", "temporary tar %s: %s" % (temp["name"], temp["error"]))

    fault_ok = ok_sources(fault["records"])
    if command == "prefetch" and status in DOCUMENTED[command] and not fault["hung"]:
        left = after["left"]
        if left is None:
            violation("remaining", "no --save-remaining file (exit %d)" % status)
        else:
            order = [urls.index(u) if u in urls else -1 for u in left]
            if -1 in order or order != sorted(set(order)):
                violation("remaining", "not lines of the list, once each, in order: %s" % left[:4])
            failed = {r.get("original_source") for r in fault["records"] if r.get("status") != "ok"}
            if fault_ok & set(left) or failed - set(left):
                violation("remaining", "delivered lines kept or failed lines left out: %s" %
                          sorted((fault_ok & set(left)) | (failed - set(left)))[:3])
            elif stop != "stdout" and shard_urls is not None and set(left) != shard_urls - fault_ok:
                violation("remaining", "holds %d lines, %d not done: missing %s, extra %s" % (
                    len(left), len(shard_urls - fault_ok), sorted(shard_urls - fault_ok - set(left))[:2],
                    sorted(set(left) - (shard_urls - fault_ok))[:2]))
            if obs.get("unseen_rc", 0) != 0:
                violation("remaining", "lines left out of it are not in the cache (--cache-only exit %d)"
                          % obs["unseen_rc"])

    if rerun["hung"] or rerun["rc"] != 0:
        violation("next-run", "next run exit %d%s" % (shell_status(rerun["rc"]), tail(rerun)))
    elif command == "get" and not final.get("out_ok"):
        violation("next-run", "next run wrote no JPEG to -o")
    elif "shard" in final:
        if final["shard"]["marker"] is None:
            violation("next-run", "no marker after the next run")
        for text in check_marker(spec, final["shard"], dict(rerun, wrote_marker=after["shard"]["marker"] is None), urls):
            violation("next-run", text)
    elif command == "prefetch":
        left = after["left"] if after["left"] is not None else urls
        missing = shard_urls - fault_ok - ok_sources(rerun["records"]) - (set(urls) - set(left)
                                                                         if stop == "stdout" else set())
        if missing:
            violation("next-run", "%d lines never delivered: %s" % (len(missing), sorted(missing)[:2]))

    images = {n.partition(".")[0] for n in tier_names if not n.endswith(".meta")}
    for name in tier_names:
        if name.endswith(".meta") and name[:-5] not in images:
            violation("tier", "remote %s without its image" % name)

    if rerun_requests:
        ranges = sorted(e["headers"].get("range", "") for e in rerun_requests)
        for length in after["partials"]:
            want = "bytes=%d-" % length
            if want in ranges:
                ranges.remove(want)
            else:
                violation("resume", "a partial of %d bytes was kept, the next run sent no Range: %s" % (length, want))
    return bad


def tail(run):
    text = run["stderr"].strip().splitlines()
    return (": " + text[-1][:200]) if text else ""
