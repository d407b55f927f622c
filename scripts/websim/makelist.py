#!/usr/bin/env python3
"""Writes the simulated web's list: LINES lines over LINES/10 origins (at least 1), one URL a line.

Usage: makelist.py LINES PORT BLACKHOLE_PORT OUT
Each origin gets its lines in turn (line k goes to origin k % origins + 1), images of the three
formats; a robots_disallow origin's odd lines are under /private/, a redirect origin's lines go
through /r/; a blackhole origin's lines name the blackhole port.
"""
import sys

import profiles


def main():
    lines, port, hole, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    origins = max(1, lines // 10)
    exts = ["jpg", "png", "webp"]
    with open(out, "w") as f:
        for k in range(lines):
            n = k % origins + 1
            kind = profiles.profile(n)
            p = hole if kind == "blackhole" else port
            i = k // origins
            name = "%d.%s" % (k, exts[k % 3])
            if kind == "robots_disallow" and i % 2 == 1:
                path = "/private/" + name
            elif kind == "redirect":
                path = "/r/" + name
            else:
                path = "/img/" + name
            f.write("http://%s:%d%s\n" % (profiles.address(n), p, path))


if __name__ == "__main__":
    main()
