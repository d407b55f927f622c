#!/usr/bin/env python3
"""What Tests/Engines/run.sh (make engines-test) checks, as a user of each engine would.

  checks.py block README NAME      the fenced block after "<!-- engines-test: NAME -->" (verbatim)
  checks.py log ORIGIN FILE        the test server's request log (its /__stats) to FILE
  checks.py once LIST LOG RECORDS...
      every line of LIST was requested exactly once (LOG), and `records`
  checks.py records LIST RECORDS...
      every line of LIST has exactly one record among the RECORDS files (NDJSON: imgfetch's --json
      records, or the JSON lines Spark wrote; summary records aside), ok (its source_sha256 the
      served fixture's, its source_width and source_height set), or failed with code http_status
      for a line of the test server's /status/ route
  checks.py progress ORIGIN RECORDS
      "ANSWERED REQUESTED TOTAL" for the lines named by RECORDS (a shard's lines, as an offline run
      of imgfetch lists them): how many the server has answered, has been asked, and their number
  checks.py resumed LIST BEFORE AFTER KILLED_AT SECONDS SHARD_RECORDS
      after a task was killed at KILLED_AT (epoch seconds) and its array submitted again: the second
      submission requested only lines of the killed shard (SHARD_RECORDS, its records once finished),
      at least one, and none that the server had answered (SECONDS after its arrival) more than 1 s
      before the kill (time enough to store it); no line was requested more than twice in all.
Exits 1 with the reason on the first check that fails.
"""

import hashlib
import json
import os
import sys
import urllib.parse
import urllib.request
from collections import Counter


def fail(message):
    print("engines-test: FAILED: " + message, file=sys.stderr)
    sys.exit(1)


def block(readme, name):
    lines = open(readme, encoding="utf-8").read().split("\n")
    marker = f"<!-- engines-test: {name} -->"
    starts = [i for i, line in enumerate(lines) if line.strip() == marker]
    if len(starts) != 1:
        fail(f"{readme} has {len(starts)} blocks marked {marker!r}, expected one")
    i = starts[0] + 1
    if i >= len(lines) or not lines[i].startswith("```"):
        fail(f"the line after {marker!r} in {readme} does not open a fenced block")
    body = []
    for line in lines[i + 1:]:
        if line.startswith("```"):
            sys.stdout.write("\n".join(body) + "\n")
            return
        body.append(line)
    fail(f"the block after {marker!r} in {readme} is not closed")


def save_log(origin, path):
    with urllib.request.urlopen(origin + "/__stats", timeout=30) as response:
        log = json.load(response)["log"]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(log, f)


def list_paths(path):
    """The list's URLs, as path+query (what the server's log names)."""
    paths = []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line and not line.startswith("#"):
            u = urllib.parse.urlsplit(line)
            paths.append(u.path + ("?" + u.query if u.query else ""))
    if not paths:
        fail(f"{path} has no line")
    return paths


def requests(log_path):
    return [e for e in json.load(open(log_path, encoding="utf-8")) if e["method"] == "GET"]


def records(files):
    out = []
    for name in files:
        for n, line in enumerate(open(name, encoding="utf-8"), 1):
            if line.strip():
                try:
                    record = json.loads(line)
                except ValueError:
                    fail(f"{name}:{n} is not a JSON record: {line[:200]!r}")
                if not record.get("summary"):
                    out.append(record)
    return out


def source_path(record):
    u = urllib.parse.urlsplit(record.get("source", ""))
    return u.path + ("?" + u.query if u.query else "")


# The origin's policy files (robots.txt; tdmrep.json for a dataset run), asked besides the lines.
POLICY_FILES = {"/robots.txt", "/.well-known/tdmrep.json"}


def once(list_file, log_path, files):
    want = list_paths(list_file)
    asked = Counter(e["path"] for e in requests(log_path))
    wrong = {p: asked[p] for p in want if asked[p] != 1}
    if wrong:
        fail(f"{len(wrong)} of {len(want)} lines were not requested exactly once: {sorted(wrong.items())[:5]}")
    extra = set(asked) - set(want) - POLICY_FILES
    if extra:
        fail(f"requests for what the list does not hold: {sorted(extra)[:5]}")
    print(f"engines-test: {len(want)} lines, each requested once")
    check_records(list_file, files)


def check_records(list_file, files):
    want = list_paths(list_file)
    recs = records(files)
    by_source = Counter(source_path(r) for r in recs)
    missing = [p for p in want if by_source[p] != 1]
    if missing or len(recs) != len(want):
        fail(f"{len(recs)} records for {len(want)} lines; not exactly one record for {missing[:5]}")
    failing = lambda r: source_path(r).startswith("/status/")
    bad = [r for r in recs if (r.get("status"), (r.get("error") or {}).get("code"))
           != (("failed", "http_status") if failing(r) else ("ok", None))]
    if bad:
        fail(f"{len(bad)} records are not as expected: {bad[:2]}")
    # Each ok record names its source's bytes as served: the fixture's SHA-256 (Spark's schema too).
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures")
    digests = {}
    for r in recs:
        if r.get("status") != "ok":
            continue
        name = urllib.parse.unquote(urllib.parse.urlsplit(r["source"]).path.rsplit("/", 1)[-1])
        if name not in digests:
            digests[name] = hashlib.sha256(open(os.path.join(fixtures, name), "rb").read()).hexdigest()
        if r.get("source_sha256") != digests[name] or not r.get("source_width") or not r.get("source_height"):
            fail(f"a record does not name its source's bytes and size ({name}: {digests[name]}): {r}")
    print(f"engines-test: {len(recs)} records, one a line ({sum(map(failing, recs))} failed as expected, "
          f"the others ok) in {len(files)} files")


def progress(origin, records_file):
    paths = {source_path(r) for r in records([records_file])}
    with urllib.request.urlopen(origin + "/__stats", timeout=30) as response:
        log = [e for e in json.load(response)["log"] if e["method"] == "GET" and e["path"] in paths]
    print(sum(1 for e in log if e.get("status") == 200), len(log), len(paths))


def resumed(list_file, before_path, after_path, killed_at, seconds, shard_records):
    want = set(list_paths(list_file))
    before, after = requests(before_path), requests(after_path)
    shard = {source_path(r) for r in records([shard_records])}
    second = [e["path"] for e in after[len(before):]]
    if not second:
        fail("the second submission requested nothing: the killed task had finished its shard")
    outside = [p for p in second if p not in shard]
    if outside:
        fail(f"the second submission requested {len(outside)} lines of other shards: {outside[:5]}")
    done_before = {e["path"] for e in before if e.get("status") == 200 and e["t"] + seconds + 1 < killed_at}
    if not done_before & shard:
        fail("the killed shard had no line answered more than 1 s before the kill: nothing to keep")
    again = [p for p in second if p in done_before]
    if again:
        fail(f"the second submission fetched again {len(again)} lines answered before the kill: {again[:5]}")
    counts = Counter(e["path"] for e in after if e["path"] not in POLICY_FILES)
    twice = {p: n for p, n in counts.items() if n > 2 or (n == 2 and p not in shard)}
    if twice or set(counts) != want:
        fail(f"requests per line: {sorted(twice.items())[:5]}; unrequested: {sorted(want - set(counts))[:5]}")
    print(f"engines-test: the killed shard ({len(shard)} lines) lost {len(second)} unfinished lines, "
          f"fetched on resubmission; {len(done_before & shard)} it had finished were not fetched again; "
          f"the other shards sent no request")


def main(argv):
    if len(argv) >= 3 and argv[0] == "block":
        block(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "log":
        save_log(argv[1], argv[2])
    elif len(argv) >= 4 and argv[0] == "once":
        once(argv[1], argv[2], argv[3:])
    elif len(argv) >= 3 and argv[0] == "records":
        check_records(argv[1], argv[2:])
    elif len(argv) == 3 and argv[0] == "progress":
        progress(argv[1], argv[2])
    elif len(argv) == 7 and argv[0] == "resumed":
        resumed(argv[1], argv[2], argv[3], float(argv[4]), float(argv[5]), argv[6])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
