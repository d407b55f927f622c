#!/usr/bin/env python3
"""fake-cache.py DIR N [TEMPLATE_META] -- write N cache entries into the imgfetch cache directory DIR.

Layout and .meta encoding as in Sources/ImageFetch/Caching/{DiskCache,CacheEntry}.swift:
  DIR/v1/<first 2 hex of key>/<key>.meta   "imgfetch-meta 1", then name<TAB>value lines, then "end"
  DIR/v1/<first 2 hex of key>/<key>.jpg    the image bytes (format jpeg)
With TEMPLATE_META (the .meta of a real entry, its image beside it) every entry gets that entry's
image bytes, size, dimensions and checksum, so the entries are valid (`cache verify` passes);
without it, the image is a few fake bytes with a made-up checksum (enough for `cache ls`).
Keys are sha256("imgfetch-bench-fake-<i>"), so the same N always gives the same keys.
Writes DIR/STAMP last (the caller reuses DIR when STAMP matches).
"""
import hashlib
import os
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, n = sys.argv[1], int(sys.argv[2])
    template = sys.argv[3] if len(sys.argv) > 3 else None
    image = b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9"
    checksum, width, height = "xxh64:0000000000000000", 64, 48
    if template:
        fields = {}
        for line in open(template, encoding="utf-8").read().splitlines()[1:-1]:
            name, _, value = line.partition("\t")
            fields[name] = value
        with open(os.path.join(os.path.dirname(template), fields["key"] + ".jpg"), "rb") as f:
            image = f.read()
        checksum, width, height = fields["checksum"], int(fields["width"]), int(fields["height"])
    v1 = os.path.join(root, "v1")
    for shard in range(256):
        os.makedirs(os.path.join(v1, "%02x" % shard), exist_ok=True)
    os.makedirs(os.path.join(v1, "tmp"), exist_ok=True)
    now = time.time()
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    for i in range(n):
        key = hashlib.sha256(b"imgfetch-bench-fake-%d" % i).hexdigest()
        url = "http://127.0.0.1:1/fake/%06d/photo-%d.jpg" % (i // 1000, i)
        created = now - (i * 2654435761 % (30 * 86400)) - (i % 1000) / 1000.0
        variant = "original" if i % 3 == 0 else "w320-h320-inside-original-q80"
        meta = ("imgfetch-meta 1\n"
                "key\t%s\nidentity\t%s\nsource\t%s\nvariant\t%s\nformat\tjpeg\n"
                "width\t%d\nheight\t%d\nbytes\t%d\nchecksum\t%s\ncreated\t%r\nexpires\t%r\n"
                "etag\t\"%08x-%x\"\nend\n") % (key, url, url, variant, width, height, len(image), checksum,
                                               created, created + 30 * 86400, i, len(image))
        base = os.path.join(v1, key[:2], key)
        fd = os.open(base + ".jpg", flags, 0o644)
        os.write(fd, image)
        os.close(fd)
        fd = os.open(base + ".meta", flags, 0o644)
        os.write(fd, meta.encode())
        os.close(fd)
    with open(os.path.join(root, "STAMP"), "w") as f:
        f.write("fake-cache v1 n=%d template=%s\n" % (n, "yes" if template else "no"))


if __name__ == "__main__":
    main()
