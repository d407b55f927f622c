#!/usr/bin/env python3
"""stores.py BIN CACHE_DIR LIMIT SRC... -- one `BIN get SRC -o /dev/null --cache-dir CACHE_DIR
--cache-size-limit LIMIT` per SRC, one after the other (as a shell loop would), and prints each
run's wall time in milliseconds on one line, in run order (figure 17). Exits 1 when a get fails."""
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    binary, cache, limit, sources = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    times = []
    for src in sources:
        start = time.perf_counter()
        r = subprocess.run([binary, "get", src, "-o", "/dev/null", "--cache-dir", cache, "--cache-size-limit", limit],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append((time.perf_counter() - start) * 1000)
        if r.returncode != 0:
            sys.stderr.write("stores.py: get %s failed: %s\n" % (src, r.stderr.decode(errors="replace")))
            sys.exit(1)
    print(" ".join("%.2f" % t for t in times))


if __name__ == "__main__":
    main()
