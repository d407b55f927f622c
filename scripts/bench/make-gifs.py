#!/usr/bin/env python3
"""make-gifs.py DIR [W H] -- animated GIFs of 20 frames (W x H, 800x600 by default), one of each kind an
image fetcher meets, for `make bench-instructions` (its animated GIF row) and the choice of gifsave's
effort (vips_outputs.c). Deterministic (numpy's seeded generator, PIL's adaptive palette per frame):
  pan.gif      a photo-like field (three octaves of smooth noise, a colour gradient) panned across
  zoom.gif     the same field zoomed in step by step
  grain.gif    a clip with fresh film grain in every frame (a video turned GIF)
  shapes.gif   flat-coloured discs and bars moving over a flat background (a sticker, a cartoon)
  fade.gif     two colour gradients cross-fading (smooth tones: the palette's hardest case)
  screen.gif   a screen recording: white page, text-like grey lines, a cursor block and a growing bar
Needs numpy and PIL (python3-numpy, python3-pil)."""
import os
import sys

import numpy as np
from PIL import Image

FRAMES = 20


def smooth(rng, w, h, cell):
    small = rng.random((h // cell + 2, w // cell + 2)).astype(np.float32)
    img = Image.fromarray((small * 255).astype(np.uint8)).resize((w + 2 * cell, h + 2 * cell), Image.BICUBIC)
    return np.asarray(img, dtype=np.float32)[cell:cell + h, cell:cell + w] / 255.0


def field(rng, w, h):
    bands = []
    for b in range(3):
        f = smooth(rng, w, h, 256) + 0.6 * smooth(rng, w, h, 64) + 0.3 * smooth(rng, w, h, 12)
        bands.append(f / 1.9)
    rgb = np.stack(bands, axis=2)
    x = np.linspace(0, 1, w, dtype=np.float32)[None, :, None]
    y = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    rgb = 0.7 * rgb + 0.3 * np.concatenate([x + 0 * y, y + 0 * x, 1 - x + 0 * y], axis=2)
    return np.clip(rgb * 255, 0, 255)


def frames_pan(rng, w, h):
    big = field(rng, w + FRAMES * 12, h + FRAMES * 6)
    return [big[i * 6:i * 6 + h, i * 12:i * 12 + w] for i in range(FRAMES)]


def frames_zoom(rng, w, h):
    base = Image.fromarray(field(rng, w, h).astype(np.uint8))
    out = []
    for i in range(FRAMES):
        s = 1 + i * 0.03
        cw, ch = int(w / s), int(h / s)
        box = ((w - cw) // 2, (h - ch) // 2, (w - cw) // 2 + cw, (h - ch) // 2 + ch)
        out.append(np.asarray(base.resize((w, h), Image.BICUBIC, box=box), dtype=np.float32))
    return out


def frames_grain(rng, w, h):
    base = field(rng, w, h)
    return [np.clip(base + rng.normal(0, 8, (h, w, 1)), 0, 255) for _ in range(FRAMES)]


def frames_shapes(rng, w, h):
    yy, xx = np.mgrid[0:h, 0:w]
    discs = [(rng.integers(0, w), rng.integers(0, h), rng.integers(30, 120), rng.integers(0, 256, 3),
              rng.integers(-20, 20), rng.integers(-15, 15)) for _ in range(7)]
    out = []
    for i in range(FRAMES):
        img = np.empty((h, w, 3), np.float32)
        img[:] = (250, 236, 200)
        img[h * 3 // 4:] = (90, 160, 70)
        for x, y, r, c, dx, dy in discs:
            img[(xx - (x + dx * i)) ** 2 + (yy - (y + dy * i)) ** 2 < r * r] = c
        img[40:70, 20:20 + (w - 40) * (i + 1) // FRAMES] = (200, 40, 40)
        out.append(img)
    return out


def frames_fade(rng, w, h):
    x = np.linspace(0, 1, w, dtype=np.float32)[None, :]
    y = np.linspace(0, 1, h, dtype=np.float32)[:, None]
    a = np.stack([255 * x + 0 * y, 128 + 0 * x * y, 255 * y + 0 * x], axis=2)
    b = np.stack([60 + 0 * x * y, 255 * (1 - y) + 0 * x, 255 * (1 - x) + 0 * y], axis=2)
    return [a + (b - a) * i / (FRAMES - 1) for i in range(FRAMES)]


def frames_screen(rng, w, h):
    page = np.full((h, w, 3), 255, np.float32)
    page[:48] = (40, 44, 52)
    for row, y in enumerate(range(80, h - 40, 22)):
        length = int(rng.integers(w // 4, w - 80))
        page[y:y + 10, 40:40 + length] = 110 + 20 * (row % 3)
    out = []
    for i in range(FRAMES):
        img = page.copy()
        img[90 + i * 22:104 + i * 22, 40 + i * 17:48 + i * 17] = (20, 90, 220)
        img[h - 24:h - 12, 40:40 + (w - 80) * (i + 1) // FRAMES] = (30, 170, 90)
        out.append(img)
    return out


KINDS = {"pan": frames_pan, "zoom": frames_zoom, "grain": frames_grain, "shapes": frames_shapes,
         "fade": frames_fade, "screen": frames_screen}


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit("usage: make-gifs.py DIR [W H]")
    out = sys.argv[1]
    w, h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) == 4 else (800, 600)
    os.makedirs(out, exist_ok=True)
    for seed, (name, make) in enumerate(KINDS.items()):
        rng = np.random.default_rng(seed + 1)
        frames = [Image.fromarray(f.astype(np.uint8)) for f in make(rng, w, h)]
        path = os.path.join(out, name + ".gif")
        frames[0].save(path + ".part", format="GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
        os.replace(path + ".part", path)


if __name__ == "__main__":
    main()
