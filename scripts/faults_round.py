"""One round of `scripts/faults.py`: a run of imgfetch (`get` or `prefetch`) stopped one way at a
random moment, what it left (observed here, inside the round's mount namespace when it has one),
then the next run, fault-free. The verdict is `faults_checks.check`'s."""

import json
import os
import random
import select
import signal
import subprocess
import threading
import time

import faults_checks as checks

SCENARIOS = ["get-baseline", "get-progressive", "prefetch-remaining", "prefetch-shard", "prefetch-tar",
             "prefetch-remote"]
STOPS = ["sigint", "sigterm", "sighup", "stdout", "end", "kill9", "enospc", "rocache"]
NAMESPACE_STOPS = {"enospc", "rocache"}
SIGNALS = {"sigint": signal.SIGINT, "sigterm": signal.SIGTERM, "sighup": signal.SIGHUP,
           "kill9": signal.SIGKILL}
LIVE = set()            # the processes running (stopped by the suite on any exit of its own)
LIVE_LOCK = threading.Lock()
STOPPING = threading.Event()
NEW_SESSION = True      # imgfetch in a session of its own (not inside a namespace round's, whose
                        # process group the suite kills whole)
EXIT_TIMEOUT = 120      # seconds a run may take to end after its stop (a hang is a violation)
TMPFS_BYTES = 8 << 20   # the full disk's size: a list's entries fit when the filler is gone


def make_spec(seed, index, stops, scenarios=SCENARIOS):
    """The round's choices, from the seed and its number alone (so `--seed S --round N` replays it)."""
    rng = random.Random("%d:%d" % (seed, index))
    scenario = rng.choice(scenarios)
    stop = rng.choice(stops)
    tag = "s%dr%d" % (seed, index)
    lines, span = [], 0.0
    if scenario.startswith("get"):
        name = "photo.jpg" if scenario == "get-baseline" else "progressive.jpg"
        trickle = rng.randint(3, 8)
        lines.append("/img/%s?trickle=%d&v=%s-0" % (name, trickle, tag))
        span = 0.1 + 80 * trickle / 1000.0
    else:
        count = rng.randint(8, 16)
        for i in range(count):
            kind = rng.random()
            # Mostly bodies that arrive fast (a piece every 1-2 ms) while the stop cancels them:
            # the use after free of issue 42 needed transfers feeding their decodes at that moment.
            if kind < 0.2:
                lines.append("/slow/photo.jpg?seconds=%.2f&v=%s-%d" % (rng.uniform(0.1, 0.3), tag, i))
            elif kind < 0.7:
                lines.append("/img/photo.jpg?trickle=%d&v=%s-%d" % (rng.randint(1, 2), tag, i))
            else:
                lines.append("/img/progressive.jpg?trickle=%d&v=%s-%d" % (rng.randint(1, 2), tag, i))
        span = 0.1 + count / 4.0 * 0.15
    shard = [rng.randint(1, 2), 2] if scenario in ("prefetch-shard", "prefetch-tar") else [1, 1]
    span = 0.1 + (span - 0.1) / shard[1]   # a shard runs about its share of the lines
    return {"seed": seed, "round": index, "scenario": scenario, "stop": stop, "tag": tag,
            "paths": lines, "delay": round(rng.uniform(0.05, span), 3),
            "shard": shard,
            "free": rng.randint(100 << 10, 3 << 20)}


def commands(spec, binary, origin, tier, work):
    """(the fault run's command, the next run's command) of a round whose files are under `work`."""
    cache = os.path.join(work, "cache")
    urls = ["http://127.0.0.1:%d%s" % (origin, p) for p in spec["paths"]]
    if spec["scenario"].startswith("get"):
        cmd = [binary, "get", urls[0], "-s", "64x64", "-o", os.path.join(work, "out.jpg"), "--json",
               "--cache-dir", cache]
        return cmd, cmd
    with open(os.path.join(work, "list.txt"), "w") as f:
        f.write("".join(u + "\n" for u in urls))
    base = [binary, "prefetch", "LIST", "-s", "64x64", "-j", "4", "--json", "--cache-dir", cache]
    if spec["scenario"] in ("prefetch-shard", "prefetch-tar"):
        base += ["--shard", "%d/%d" % tuple(spec["shard"]), "--shard-dir", os.path.join(work, "shards")]
        if spec["scenario"] == "prefetch-tar":
            base.append("--shard-tar")
    if spec["scenario"] == "prefetch-remote":
        base += ["--remote-cache", "http://127.0.0.1:%d/%s/" % (tier, spec["tag"]), "--remote-timeout", "5"]
    listed = "-" if piped(spec) else os.path.join(work, "list.txt")
    fault = [listed if a == "LIST" else a for a in base]
    fault += ["--save-remaining", os.path.join(work, "left.txt")]
    return fault, base   # the next run's LIST is decided after the fault run (next_command)


def piped(spec):
    """The stop `end` of a prefetch without shards reads its list from a pipe, line by line, to
    the end of its input."""
    return spec["stop"] == "end" and spec["scenario"] in ("prefetch-remaining", "prefetch-remote")


def feed(pipe, lines, rng):
    try:
        for line in lines:
            pipe.write(line.encode() + b"\n")
            pipe.flush()
            time.sleep(rng.uniform(0, 0.03))
    except (BrokenPipeError, ValueError):
        pass
    finally:
        try:
            pipe.close()
        except BrokenPipeError:
            pass


def next_command(spec, base, work):
    """The run after the fault: a shard's same command (its marker says whether it is done); else
    the remaining file when the fault run wrote one, else the whole list."""
    if spec["scenario"].startswith("get"):
        return base
    left = os.path.join(work, "left.txt")
    listed = os.path.join(work, "list.txt")
    if spec["scenario"] not in ("prefetch-shard", "prefetch-tar") and os.path.exists(left):
        listed = left
    return [listed if a == "LIST" else a for a in base] + ["--save-remaining", os.path.join(work, "left2.txt")]


def launch(cmd, work, name, stdin=subprocess.DEVNULL):
    """imgfetch with SIGINT, SIGTERM and SIGHUP at their defaults (never inherited as ignored)."""
    err = open(os.path.join(work, name + ".err"), "wb")
    try:
        with LIVE_LOCK:
            if STOPPING.is_set():
                raise RuntimeError("the suite is stopping")
            proc = subprocess.Popen(["env", "--default-signal=INT,TERM,HUP"] + cmd, stdin=stdin,
                                    stdout=subprocess.PIPE, stderr=err, start_new_session=NEW_SESSION)
            LIVE.add(proc)
        return proc
    finally:
        err.close()


def read_until(fd, stop_reading, chunks):
    """Reads `fd` into `chunks` until its end or until `stop_reading` is set; then closes it (for
    the stop `stdout`: the reader goes away)."""
    while True:
        if stop_reading.is_set():
            break
        ready, _, _ = select.select([fd], [], [], 0.02)
        if ready:
            data = os.read(fd, 65536)
            if not data:
                break
            chunks.append(data)
    os.close(fd)


def run(cmd, work, name, stop=None, delay=0.0, act=None, lines=None):
    """Runs `cmd`, stops it with `stop` after `delay` s if it still runs; returns what it did.
    `lines`: written to its stdin, a few ms apart, then closed."""
    proc = launch(cmd, work, name, subprocess.DEVNULL if lines is None else subprocess.PIPE)
    if lines is not None:
        threading.Thread(target=feed, args=(proc.stdin, lines, random.Random(delay)), daemon=True).start()
    fd = os.dup(proc.stdout.fileno())
    proc.stdout.close()
    chunks, stop_reading = [], threading.Event()
    reader = threading.Thread(target=read_until, args=(fd, stop_reading, chunks), daemon=True)
    reader.start()
    stopped = False
    if stop not in (None, "end", "enospc"):
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            stopped = True
            if stop in SIGNALS:
                os.kill(proc.pid, SIGNALS[stop])
            elif stop == "stdout":
                stop_reading.set()
            elif act is not None:
                stopped = act(proc)
    hung = False
    try:
        proc.wait(timeout=EXIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        hung = True
        proc.kill()
        proc.wait()
    reader.join()
    LIVE.discard(proc)
    with open(os.path.join(work, name + ".err"), "rb") as f:
        err = f.read()[-2000:].decode("utf-8", "replace")
    return {"rc": proc.returncode, "stopped": stopped, "hung": hung, "cmd": cmd,
            "records": checks.parse_records(b"".join(chunks)), "stderr": err}


def sh(*args):
    return subprocess.run(list(args), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


def make_read_only(cache):
    """The act of the stop `rocache`: a read-only bind mount of the cache, retried while a file of
    it is open for writing (EBUSY), until the run ends."""
    def act(proc):
        while proc.poll() is None:
            if sh("mount", "-o", "remount,bind,ro", cache) == 0:
                return True
            time.sleep(0.002)
        return False
    return act


def delivered_unseen(spec, obs, fault_cmd, work):
    """After a closed stdout, the records of the lines done after the close were never read: the
    lines of the list left out of the remaining file must be in the cache (a --cache-only run of
    them, with the same shard and processing, exits 0)."""
    left = obs["after_fault"]["left"]
    if left is None:
        return 0
    seen = checks.ok_sources(obs["fault"]["records"])
    listed = open(os.path.join(work, "list.txt")).read().splitlines()
    unseen = [u for u in listed if u not in seen and u not in left]
    if not unseen:
        return 0
    with open(os.path.join(work, "unseen.txt"), "w") as f:
        f.write("".join(u + "\n" for u in unseen))
    cmd = fault_cmd[:2] + [os.path.join(work, "unseen.txt"), "-s", "64x64", "--cache-only",
                                        "--cache-dir", os.path.join(work, "cache")]
    if "--shard" in fault_cmd:
        cmd += ["--shard", fault_cmd[fault_cmd.index("--shard") + 1]]
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


def play(spec, binary, origin, tier, work):
    """Plays one round in `work` (inside its mount namespace for enospc and rocache): returns the
    observation `faults_checks.check` judges."""
    cache = os.path.join(work, "cache")
    os.makedirs(cache, exist_ok=True)
    fault_cmd, base = commands(spec, binary, origin, tier, work)
    stop, act, filler = spec["stop"], None, None
    if stop == "enospc":
        if sh("mount", "-t", "tmpfs", "-o", "size=%d" % TMPFS_BYTES, "tmpfs", cache) != 0:
            return {"setup_failed": "mount tmpfs"}
        filler = os.path.join(cache, "filler")
        with open(filler, "wb") as f:
            os.posix_fallocate(f.fileno(), 0, TMPFS_BYTES - spec["free"])
    elif stop == "rocache":
        if sh("mount", "--bind", cache, cache) != 0:
            return {"setup_failed": "mount --bind"}
        act = make_read_only(cache)
    listed = open(os.path.join(work, "list.txt")).read().splitlines() if piped(spec) else None
    obs = {"fault": run(fault_cmd, work, "fault", stop, spec["delay"], act, listed)}
    obs["after_fault"] = checks.observe(spec, binary, work)
    if stop == "stdout" and not spec["scenario"].startswith("get"):
        obs["unseen_rc"] = delivered_unseen(spec, obs, fault_cmd, work)
    if filler is not None:
        os.unlink(filler)
    if stop == "rocache":
        sh("mount", "-o", "remount,bind,rw", cache)
    obs["rerun_t0"] = time.time()
    obs["rerun"] = run(next_command(spec, base, work), work, "rerun")
    obs["after_rerun"] = checks.observe(spec, binary, work)
    return obs


def play_in_namespace(spec, binary, origin, tier, work, script):
    """`play` in a user and mount namespace of its own (`unshare -rm`): the tmpfs and the bind
    mounts go away with it. The observation comes back as JSON on stdout."""
    cmd = ["unshare", "-rm", os.environ.get("PYTHON", "python3"), script, "--inner", json.dumps(spec),
           "--binary", binary, "--origin-port", str(origin), "--tier-port", str(tier), "--work", work]
    with LIVE_LOCK:
        if STOPPING.is_set():
            raise RuntimeError("the suite is stopping")
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        LIVE.add(proc)
    out, err = proc.communicate()
    LIVE.discard(proc)
    try:
        return json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"setup_failed": "namespace round: exit %d: %s" % (proc.returncode, err.decode()[-500:])}
