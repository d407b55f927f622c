#!/usr/bin/env python3
"""shard_tar_check.py TAR RECORDS: reads a --shard-tar archive as its users do and prints what it found,
as JSON on stdout (exit 1 with the reason on stderr when it is not a valid webdataset shard).

- the `webdataset` package (PyPI) groups the members into samples by key (a name up to its first dot);
  each sample must hold exactly one image and one `json`, the json must parse and be the record of the
  same line in RECORDS (the shard's .ndjson), and the image must decode with PIL at the record's size;
- Python's `tarfile` must read every member (ustar, regular files, their sizes), and the members must
  come in pairs, image then json, of the same key.

Output: {"samples": N, "keys": [...], "members": [...], "formats": [...], "pairs_adjacent": true}.
"""
import io
import json
import sys
import tarfile

import webdataset as wds
from PIL import Image

IMAGE_EXTENSIONS = {"jpg", "png", "webp", "avif", "gif", "img"}


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def main():
    tar_path, records_path = sys.argv[1], sys.argv[2]
    with open(records_path, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    by_line = {r["line"]: r for r in records if r.get("status") == "ok"}

    # tarfile: every member readable, a regular ustar file, in adjacent pairs image then json.
    members = []
    with tarfile.open(tar_path, mode="r:") as archive:
        for info in archive:
            if not info.isreg():
                fail("%s is not a regular file" % info.name)
            if "/" in info.name or info.name.startswith("."):
                fail("member name %r names a path" % info.name)
            data = archive.extractfile(info).read()
            if len(data) != info.size:
                fail("%s: read %d of %d bytes" % (info.name, len(data), info.size))
            members.append(info.name)
    if len(members) % 2:
        fail("an odd number of members: %d" % len(members))
    for image, record in zip(members[0::2], members[1::2]):
        key, ext = image.split(".", 1)
        if ext not in IMAGE_EXTENSIONS or record != key + ".json":
            fail("not an image then its json: %s, %s" % (image, record))

    # webdataset: the samples, as a training loop gets them.
    keys, formats = [], []
    for sample in wds.WebDataset(tar_path, shardshuffle=False):
        key = sample["__key__"]
        images = [k for k in sample if k in IMAGE_EXTENSIONS]
        extras = [k for k in sample if not k.startswith("__") and k not in IMAGE_EXTENSIONS and k != "json"]
        if len(images) != 1 or "json" not in sample or extras:
            fail("sample %s holds %s" % (key, sorted(k for k in sample if not k.startswith("__"))))
        record = json.loads(sample["json"])
        expected = by_line.get(record.get("line"))
        if record != expected:
            fail("sample %s: its json is not the line's record in %s: %r" % (key, records_path, record))
        picture = Image.open(io.BytesIO(sample[images[0]]))
        picture.load()
        if picture.size != (record["width"], record["height"]):
            fail("sample %s: the image is %s, its record says %sx%s" % (key, picture.size, record["width"], record["height"]))
        keys.append(key)
        formats.append(images[0])
    print(json.dumps({"samples": len(keys), "keys": keys, "members": members, "formats": formats, "pairs_adjacent": True}))


if __name__ == "__main__":
    main()
