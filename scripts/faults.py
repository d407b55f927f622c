#!/usr/bin/env python3
"""imgfetch's fault suite (issue 42; `make faults`, run by .ci/run): runs imgfetch, stops it at a
random moment, and checks what it left and that the next run finishes the job.

Each round picks, from the seed and its number, one scenario and one stop:

  scenarios  get-baseline      get of a baseline JPEG trickled 4000 bytes every 3-8 ms (-s 64x64 -o)
             get-progressive   the same with a progressive JPEG (decoded while it downloads)
             prefetch-remaining  prefetch of 8-16 lines (/slow/, JPEGs trickled every 1-2 ms) -j 4 --json
                               --save-remaining
             prefetch-shard    ... with --shard K/2 --shard-dir
             prefetch-tar      ... with --shard K/2 --shard-dir --shard-tar
             prefetch-remote   ... with --remote-cache, a PUT/GET tier served by the suite
             (every prefetch has --save-remaining)
  stops      sigint, sigterm, sighup   the signal at a random moment of the run's expected span
             stdout            the reader of stdout goes away (closes the pipe) at that moment
             end               none: the run ends by itself (a prefetch without shards reads its
                               list from a pipe, fed a line every 0-30 ms, to the end of its input)
             kill9             SIGKILL at that moment
             enospc            the cache is a small tmpfs filled up to a random 0.1-3 MB free (in a
                               user and mount namespace of the round's own: `unshare -rm`)
             rocache           the cache becomes a read-only bind mount at that moment (`unshare -rm`;
                               root ignores file modes, a mount does not)

  invariants (faults_checks.TABLE)                       after sigint sigterm sighup stdout end | kill9 enospc rocache
    exit       a documented status (man EXIT STATUS: 128+signal or 0 after a signal; prefetch 141
               or 0 after a closed stdout; 0 at the end), never 132/134/139, never
               killed by a signal                                        x x x x x | - x x
    verify     `imgfetch cache verify` clean right after the stop        x x x x x | x x x
    remaining  the --save-remaining file holds exactly the lines not done, each a line of the
               list, in order (after a closed stdout: the lines it left out are in the cache)
                                                                         x x x x x | - - -
    tar-whole  a tar under its name reads whole in tarfile, every sample (KEY.jpg, KEY.json)
               complete                                                  x x x x x | - - -
    tar-prefix any tar, also a temporary one, reads up to its last complete sample
                                                                         - - - - - | x x x
    marker     a marker only beside the records and tar it vouches for (faults_checks.check_marker):
               it exists => its run ended as finished, one record per shard line, the tar reads whole
               with one sample per ok record; a stopped run leaves no records file
                                                                         x x x x x | x x x
    next-run   the next run (the remaining file, the shard again, the get again; space freed, the
               cache writable again) exits 0 and every line is delivered x x x x x | x x x
    resume     ... and sends `Range: bytes=N-` for each partial of N bytes kept in v1/partial/
                                                                         x x x x x | x x x
    tier       a KEY.meta in the remote tier only beside its image (uploaded first: the commit)
                                                                         x x x x x | x x x

The suite prints its seed first, one line per violation (invariant, scenario/stop, seed, round, what
happened, the command, the command that replays the round, the round's directory, kept), a line of
what the checks saw (rounds whose stop came while imgfetch ran, exit statuses, partials, markers,
tars), then `faults: N rounds, M violations, S s`; it exits 1 on any violation. Replay one round:
    scripts/faults.py --seed S --round N [--binary PATH] [--stops ...] [--scenarios ...]
(the same choices; the moment's timing is the machine's). imgfetch starts with SIGINT, SIGTERM and
SIGHUP at their defaults (`env --default-signal`). Everything the suite starts (the servers are
threads of its own; imgfetch runs, namespace rounds, burners) is stopped on any exit, Ctrl-C too.
Where user namespaces are off, enospc and rocache are skipped with a message.

Files: this one (the command line, the rounds in parallel, the report), faults_round.py (the
scenarios and stops, one round played), faults_checks.py (the table, what a round left, the
verdict), faults_servers.py (the origin, the tier, the burners).
"""

import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.dont_write_bytecode = True   # no __pycache__ in the working tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import faults_checks  # noqa: E402
import faults_round  # noqa: E402
import faults_servers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args():
    parser = argparse.ArgumentParser(description="imgfetch's fault suite (see the header)")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "imgfetch"))
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--round", type=int, default=None, help="play only this round of the seed")
    parser.add_argument("--parallel", type=int, default=3, help="rounds at once")
    parser.add_argument("--burners", type=int, default=0, help="busy python3 loops beside the suite")
    parser.add_argument("--stops", default=",".join(faults_round.STOPS), help="comma-separated stops")
    parser.add_argument("--scenarios", default=",".join(faults_round.SCENARIOS))
    parser.add_argument("--inner", help=argparse.SUPPRESS)   # a namespace round (JSON spec)
    parser.add_argument("--origin-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--tier-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    return parser.parse_args()


def inner(args):
    """A round inside `unshare -rm`: plays it, prints its observation as JSON. imgfetch stays in
    this process group, which the suite kills whole."""
    faults_round.NEW_SESSION = False
    spec = json.loads(args.inner)
    obs = faults_round.play(spec, args.binary, args.origin_port, args.tier_port, args.work)
    print(json.dumps(obs))


def kill_all(burners):
    with faults_round.LIVE_LOCK:
        live = list(faults_round.LIVE)
    for proc in live + burners:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class Suite:
    def __init__(self, args, stops, origin, tier, top):
        self.args, self.stops, self.origin, self.tier, self.top = args, stops, origin, tier, top
        self.scenarios = [s for s in args.scenarios.split(",") if s in faults_round.SCENARIOS]
        self.lock = threading.Lock()
        self.violations = 0
        self.hits = 0       # rounds whose stop came while imgfetch ran
        self.seen = collections.Counter()   # what the checks had to look at
        self.rounds = 0

    def play_round(self, index):
        if faults_round.STOPPING.is_set():
            return
        spec = faults_round.make_spec(self.args.seed, index, self.stops, self.scenarios)
        work = os.path.join(self.top, "r%d" % index)
        os.makedirs(work)
        port, tier = self.origin.server_address[1], self.tier.server_address[1]
        if spec["stop"] in faults_round.NAMESPACE_STOPS:
            obs = faults_round.play_in_namespace(spec, self.args.binary, port, tier, work, os.path.abspath(__file__))
        else:
            obs = faults_round.play(spec, self.args.binary, port, tier, work)
        requests = faults_servers.origin_requests(spec["tag"], obs.get("rerun_t0", 0)) if "rerun" in obs else []
        tier_names = faults_servers.tier_objects(self.tier, "/%s/" % spec["tag"]).keys()
        found = faults_checks.check(spec, obs, port, requests, tier_names)
        if faults_round.STOPPING.is_set():
            return   # its processes were killed by the suite's own stop
        with self.lock:
            self.rounds += 1
            self.hits += bool(obs.get("fault", {}).get("stopped")) or spec["stop"] == "enospc"
            after = obs.get("after_fault", {})
            self.seen["partials"] += len(after.get("partials", []))
            self.seen["markers"] += bool(after.get("shard", {}).get("marker"))
            self.seen["tars"] += bool(after.get("shard", {}).get("tar"))
            self.seen["temporary tars"] += len(after.get("shard", {}).get("temp_tars", []))
            self.seen["remaining files"] += after.get("left") is not None
            self.seen["exit %d" % faults_checks.shell_status(obs.get("fault", {}).get("rc", 0))] += 1
            self.violations += len(found)
            for invariant, text in found:
                print("VIOLATION %s: %s/%s seed %d round %d: %s; command: %s; replay: scripts/faults.py --seed %d "
                      "--round %d --stops %s --scenarios %s; kept: %s" % (
                          invariant, spec["scenario"], spec["stop"], spec["seed"], index, text,
                          " ".join(obs.get("fault", {}).get("cmd", [])), spec["seed"], index,
                          ",".join(self.stops), ",".join(self.scenarios), work), flush=True)
        if not found:
            shutil.rmtree(work, ignore_errors=True)


def namespaces_work():
    try:
        return subprocess.run(["unshare", "-rm", "true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def main():
    args = parse_args()
    if args.inner:
        return inner(args)
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "big")
    print("faults: seed %d (replay: scripts/faults.py --seed %d)" % (args.seed, args.seed), flush=True)
    stops = [s for s in args.stops.split(",") if s in faults_round.STOPS]
    if faults_round.NAMESPACE_STOPS & set(stops) and not namespaces_work():
        print("faults: skipping enospc and rocache: `unshare -rm true` fails (user namespaces are off)", flush=True)
        stops = [s for s in stops if s not in faults_round.NAMESPACE_STOPS]
    if not os.access(args.binary, os.X_OK):
        print("faults: no binary at %s (make build)" % args.binary, file=sys.stderr)
        return 2
    top = tempfile.mkdtemp(prefix="imgfetch-faults-")
    burners = faults_servers.start_burners(args.burners)

    def interrupted(signum, frame):
        raise KeyboardInterrupt
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, interrupted)
    started = time.time()
    suite = None
    try:
        origin, tier = faults_servers.start_origin(), faults_servers.start_tier()
        suite = Suite(args, stops, origin, tier, top)
        indices = [args.round] if args.round is not None else range(args.rounds)
        pool = concurrent.futures.ThreadPoolExecutor(max(1, args.parallel))
        for future in [pool.submit(suite.play_round, i) for i in indices]:
            future.result()
        pool.shutdown()
    except BaseException as e:   # Ctrl-C, SIGTERM, SIGHUP, or a fault of the suite itself
        faults_round.STOPPING.set()   # no round starts another process
        kill_all(burners)
        if isinstance(e, KeyboardInterrupt):
            print("faults: interrupted", flush=True)
        else:
            traceback.print_exc()
        shutil.rmtree(top, ignore_errors=True)
        os._exit(130 if isinstance(e, KeyboardInterrupt) else 2)
    kill_all(burners)
    if suite.violations == 0:
        shutil.rmtree(top, ignore_errors=True)
    print("faults: %d rounds stopped a running imgfetch (the others ended first); checked: %s" % (
        suite.hits, ", ".join("%s %d" % kv for kv in sorted(suite.seen.items()))))
    print("faults: %d rounds, %d violations, %.0f s" % (suite.rounds, suite.violations, time.time() - started),
          flush=True)
    return 1 if suite.violations else 0


if __name__ == "__main__":
    sys.exit(main())
