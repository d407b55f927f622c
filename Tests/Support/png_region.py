#!/usr/bin/env python3
"""png_region.py FILE X Y W H -- prints "WIDTH HEIGHT COLOURFUL DISTINCT" for an 8-bit RGB(A) PNG:
the image's size, then, inside the rectangle, the number of colourful pixels (max - min channel > 40:
photographs, not text or page background) and of distinct colours. Stdlib only (zlib); enough for
Chromium's screenshots (non-interlaced, colour type 2 or 6, bit depth 8)."""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG: " + path)
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, colour, interlace))
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def main():
    path, x0, y0, w, h = sys.argv[1], *map(int, sys.argv[2:6])
    width, height, bpp, rows = decode(path)
    colourful, distinct = 0, set()
    for y in range(max(0, y0), min(height, y0 + h)):
        row = rows[y]
        for x in range(max(0, x0), min(width, x0 + w)):
            r, g, b = row[x * bpp], row[x * bpp + 1], row[x * bpp + 2]
            distinct.add((r, g, b))
            if max(r, g, b) - min(r, g, b) > 40:
                colourful += 1
    print(width, height, colourful, len(distinct))


if __name__ == "__main__":
    main()
