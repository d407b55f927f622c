#!/usr/bin/env python3
"""Helpers for bench.sh (stdlib only).

report.py combine RES ID        merge RES/ID.r*.json (hyperfine rounds) into RES/ID.tsv:
                                name, median, min, max, runs, failed runs (seconds); prints warnings
report.py summary FILE          "total ok failed hits" from the summary line of `prefetch --json` output
report.py lsjson FILE           "variants originals SAMPLE_VARIANT_PATH" from `cache ls --json` output
report.py median V...           median of numbers (NA when any is not a number or none is given)
report.py firstline CMD...      runs CMD: "SECONDS_TO_LINE_2 SECONDS_TOTAL LINES" (line 2: the first entry
                                after a table header), stdout read as it arrives
report.py footprint DIR         "ENTRIES BYTES": a cache directory's entries and their footprint as the
                                size limit counts it (image bytes + 512 per entry with a .meta)
report.py table RES             the final table from RES/figures.tsv (+ raw medians, warnings)
report.py baseline RES          with BASELINE_BIN: each command's median new, baseline, new/baseline
                                (RES/ID.tsv pairs "LABEL", "LABEL (baseline)"; RES/rss-baseline.tsv)
"""
import glob
import json
import os
import statistics
import sys


def combine(res, fid):
    names, times, fails, codes_seen = [], {}, {}, {}
    for path in sorted(glob.glob(os.path.join(res, fid + ".r*.json"))):
        try:
            results = json.load(open(path))["results"]
        except (OSError, ValueError, KeyError):
            print("[%s] unreadable hyperfine output %s" % (fid, path))
            continue
        for r in results:
            name = r["command"]
            if name not in times:
                names.append(name)
                times[name], fails[name], codes_seen[name] = [], 0, set()
            codes = r.get("exit_codes") or [0] * len(r["times"])
            for t, code in zip(r["times"], codes):
                if code == 0:
                    times[name].append(t)
                else:
                    fails[name] += 1
                    codes_seen[name].add(str(code) + (" (SIGSEGV)" if code == 139 else ""))
    with open(os.path.join(res, fid + ".tsv"), "w") as out:
        for name in names:
            ts = times[name]
            if fails[name]:
                print("[%s] '%s' failed in %d of %d runs (exit status %s)"
                      % (fid, name, fails[name], fails[name] + len(ts), ", ".join(sorted(codes_seen[name]))))
            if ts and not fails[name]:
                out.write("%s\t%.6f\t%.6f\t%.6f\t%d\t0\n" % (name, statistics.median(ts), min(ts), max(ts), len(ts)))
            else:
                out.write("%s\tNA\tNA\tNA\t%d\t%d\n" % (name, len(ts), fails[name]))


def summary(path):
    for line in open(path, errors="replace"):
        line = line.strip()
        if line.startswith("{") and '"summary"' in line:
            try:
                s = json.loads(line)
            except ValueError:
                continue
            print(s.get("total", "NA"), s.get("ok", "NA"), s.get("failed", "NA"), s.get("hits", "NA"))
            return
    print("NA NA NA NA")


def lsjson(path):
    variants = originals = 0
    sample = "-"
    for line in open(path, errors="replace"):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("variant") == "original":
            originals += 1
        else:
            variants += 1
            if sample == "-" or e.get("path", "") < sample:
                sample = e.get("path", "-")
    print(variants, originals, sample)


def median(values):
    try:
        nums = [float(v) for v in values]
    except ValueError:
        print("NA")
        return
    print("%.6f" % statistics.median(nums) if nums else "NA")


def firstline(cmd):
    import subprocess
    import time
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    first, lines = None, 0
    for _ in p.stdout:
        lines += 1
        if lines == 2:
            first = time.monotonic() - t0
    p.wait()
    total = time.monotonic() - t0
    print("%s %.6f %d" % ("NA" if first is None or p.returncode else "%.6f" % first, total, lines))


def footprint(root):
    entries = total = 0
    v1 = os.path.join(root, "v1")
    for shard in sorted(os.listdir(v1)):
        if len(shard) != 2:
            continue
        names = os.listdir(os.path.join(v1, shard))
        metas = {n[:-5] for n in names if n.endswith(".meta")}
        for n in names:
            key, _, ext = n.partition(".")
            if ext != "meta" and key in metas:
                entries += 1
                total += os.lstat(os.path.join(v1, shard, n)).st_size + 512
    print(entries, total)


def fmt(value, unit):
    if value is None:
        return "n/a"
    if unit == "s":
        return "%.1f ms" % (value * 1000) if value < 1 else "%.2f s" % value
    if unit == "MB":
        return "%.0f MB" % value
    return "%g %s" % (value, unit)


def num(text):
    try:
        return float(text)
    except ValueError:
        return None


def table(res):
    rows = []
    for line in open(os.path.join(res, "figures.tsv")):
        p = line.rstrip("\n").split("\t")
        if len(p) < 10:
            continue
        fig, title, a_label, a_val, b_label, b_val, unit, target, target_text, note = p[:10]
        a, b, t = num(a_val), num(b_val), num(target)
        ratio = a / b if a is not None and b else None
        if note.startswith("SKIP"):
            status = "skip"
        elif ratio is None:
            status = "FAIL"
        else:
            status = "pass" if ratio <= t else "miss"
        rows.append((fig, title, a_label, a, b_label, b, unit, ratio, target_text, status, note))

    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    def order(row):
        digits = "".join(ch for ch in row[0] if ch.isdigit())
        return (int(digits) if digits else 99, row[0])

    rows.sort(key=order)

    print("\n## imgfetch benchmark (%s)\n" % open(os.path.join(res, "env.txt")).readline().strip())
    print(line(["#", "figure", "imgfetch median", "reference median", "ratio", "target", "result"]))
    print(line(["---"] * 7))
    for fig, title, a_label, a, b_label, b, unit, ratio, target_text, status, note in rows:
        print(line([fig, title, fmt(a, unit), fmt(b, unit) + ("" if b_label in ("", "-") else " (%s)" % b_label),
                    "%.2f" % ratio if ratio is not None else "n/a", target_text,
                    status + (" (%s)" % note.replace("SKIP: ", "") if note and note != "-" else "")]))
    print("\nRatio = imgfetch / reference, both measured side by side in the same hyperfine runs "
          "(absolute figures: imgfetch / limit).")
    print("\n### raw medians (all commands; seconds unless noted)\n")
    print(line(["id", "command", "median", "min", "max", "runs", "failed"]))
    print(line(["---"] * 7))
    for path in sorted(glob.glob(os.path.join(res, "*.tsv")), key=lambda p: (len(p), p)):
        fid = os.path.basename(path)[:-4]
        if fid in ("figures", "rss", "rss-baseline"):
            continue
        for l in open(path):
            p = l.rstrip("\n").split("\t")
            if len(p) == 6:
                vals = [fmt(num(v), "s") if num(v) is not None else v for v in p[1:4]]
                print(line([fid, p[0]] + vals + p[4:6]))
    rss = os.path.join(res, "rss.tsv")
    if os.path.exists(rss):
        for l in open(rss):
            p = l.rstrip("\n").split("\t")
            if len(p) >= 4:
                print(line([p[0], p[1] + " (peak RSS)", p[2] + " MB", "", "", p[3], ""]))
    w = os.path.join(res, "warnings.txt")
    text = open(w).read().strip() if os.path.exists(w) else ""
    print("\n" + ("WARNINGS:\n" + text if text else "no warnings: every command succeeded and every output check passed."))


def baseline(res):
    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    print("### new vs baseline (%s)\n" % next((l.strip() for l in open(os.path.join(res, "env.txt"))
                                               if l.startswith("baseline:")), "baseline"))
    print(line(["id", "command", "new median", "baseline median", "new / baseline"]))
    print(line(["---"] * 5))
    for path in sorted(glob.glob(os.path.join(res, "*.tsv")), key=lambda p: (len(p), p)):
        fid = os.path.basename(path)[:-4]
        if fid in ("figures", "rss", "rss-baseline"):
            continue
        medians = {}
        for l in open(path):
            p = l.rstrip("\n").split("\t")
            if len(p) == 6:
                medians[p[0]] = num(p[1])
        for name, new in medians.items():
            old = medians.get(name + " (baseline)", False)
            if old is False:
                continue
            ratio = "%.3f" % (new / old) if new is not None and old else "n/a"
            print(line([fid, name, fmt(new, "s"), fmt(old, "s"), ratio]))
    rss = os.path.join(res, "rss-baseline.tsv")
    runs = {}
    if os.path.exists(rss):
        for l in open(rss):
            p = l.rstrip("\n").split("\t")
            if len(p) == 6:
                runs.setdefault((p[0], p[1]), []).append([num(v) for v in p[2:]])
    for (fid, name), rows in runs.items():
        cols = [[r[i] for r in rows if r[i] is not None] for i in range(4)]
        med = [statistics.median(c) if c else None for c in cols]
        for label, new, old, unit, scale in (("peak RSS", med[0], med[1], "MB", 1024), ("wall", med[2], med[3], "s", 1)):
            ratio = "%.3f" % (new / old) if new is not None and old else "n/a"
            print(line([fid, "%s (%s, median of %d)" % (name, label, len(rows)),
                        fmt(new / scale if new is not None else None, unit),
                        fmt(old / scale if old is not None else None, unit), ratio]))
    print("\nBoth binaries in the same rounds (alternating order), so machine load hits both sides.")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "combine":
        combine(*args)
    elif cmd == "summary":
        summary(*args)
    elif cmd == "lsjson":
        lsjson(*args)
    elif cmd == "median":
        median(args)
    elif cmd == "firstline":
        firstline(args)
    elif cmd == "footprint":
        footprint(*args)
    elif cmd == "table":
        table(*args)
    elif cmd == "baseline":
        baseline(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
