"""Checks imgfetch's placeholders of an image with independent decoders.

Usage: placeholder_check.py IMAGE BLURHASH THUMBHASH AVERAGE_COLOR

Decodes the BlurHash with woltapp's C decoder (PyPI blurhash-python) and the ThumbHash with
thumbhash-python (a port of evanw's reference), and prints one JSON object comparing each with
the image: mean absolute difference (0-255, RGB, over pixels weighted by the image's alpha) with
the image scaled to the decoded size and blurred as much as the hash keeps, the difference of
the decoded pictures' alpha (ThumbHash), and the largest channel difference of the average colour
from the image's own alpha-weighted mean. The same differences with the image turned 180 degrees
("_rotated") are the control: a hash of the picture matches it better.
"""
import base64
import json
import sys

import blurhash
from PIL import Image, ImageFilter
from thumbhash import thumbhash_to_image


def mean_abs(a, b, weights):
    total = 0.0
    weight = 0.0
    for (pa, pb, w) in zip(a, b, weights):
        total += w * sum(abs(pa[c] - pb[c]) for c in range(3)) / 3
        weight += w
    return total / weight if weight else 0.0


def compare(image, bh, th, out, suffix=""):

    # BlurHash: 4x3 components keep only the coarsest structure; compare at 32x24 after a blur.
    decoded_img = blurhash.decode(bh, 32, 24)
    ref = image.resize((32, 24), Image.BOX)
    ref_rgb = ref.convert("RGB").filter(ImageFilter.GaussianBlur(4))
    alpha = [p[3] / 255 for p in ref.getdata()]
    out["blurhash_mae" + suffix] = mean_abs(list(decoded_img.convert("RGB").getdata()), list(ref_rgb.getdata()), alpha)

    # ThumbHash: decoded at its own aspect ratio (base size 32).
    base64.b64decode(th, validate=True)
    thumb = thumbhash_to_image(th, base_size=32).convert("RGBA")
    ref = image.resize(thumb.size, Image.BOX)
    ref_rgb = ref.convert("RGB").filter(ImageFilter.GaussianBlur(2))
    alpha = [p[3] / 255 for p in ref.getdata()]
    out["thumbhash_size"] = list(thumb.size)
    out["thumbhash_mae" + suffix] = mean_abs(list(thumb.convert("RGB").getdata()), list(ref_rgb.getdata()), alpha)
    out["thumbhash_alpha_mae" + suffix] = sum(abs(a[3] - b[3]) for a, b in zip(thumb.getdata(), ref.getdata())) / (thumb.size[0] * thumb.size[1])



def main():
    path, bh, th, avg = sys.argv[1:5]
    image = Image.open(path).convert("RGBA")
    out = {}
    compare(image, bh, th, out)
    # The control: the same picture turned upside down must match the hashes worse.
    compare(image.rotate(180), bh, th, out, "_rotated")

    # Average colour: the alpha-weighted mean of the image.
    sums = [0.0, 0.0, 0.0]
    weight = 0.0
    for p in image.getdata():
        w = p[3]
        for c in range(3):
            sums[c] += p[c] * w
        weight += w
    mean = [s / weight for s in sums] if weight else [0, 0, 0]
    given = [int(avg[1 + 2 * c: 3 + 2 * c], 16) for c in range(3)]
    out["average_color_diff"] = max(abs(m - g) for m, g in zip(mean, given))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
