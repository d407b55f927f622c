#!/usr/bin/python3
"""How right imgfetch's pictures are: the measures of issue 9, defined once (numpy + PIL, Debian's
python3-numpy and python3-pil; run with /usr/bin/python3, where apt installs them).

  reference(SOURCE, W, H)  the true picture: a full decode (PIL), EXIF orientation applied, converted
                           from the source's own ICC profile to sRGB (littlecms, relative
                           colorimetric), then a float separable Lanczos3 resize to WxH (in sRGB's
                           gamma, as libvips resizes by default), no rounding.
  psnr(A, B)               10 log10(255^2 / MSE) over the RGB channels.
  delta_e(A, B)            mean CIEDE2000 between two sRGB pictures (D65).
  moire(OUT, SOURCE_SIZE)  RMS deviation from flat grey (0-255) of a resized zone plate, over the
                           output pixels whose source frequency is above 1.2x the output's Nyquist
                           limit: an ideal resize leaves them flat grey, aliasing shows there.
  metadata(FILE)           the metadata blocks an encoded file carries (EXIF, XMP, IPTC, ICC,
                           comments, text chunks), read from the container itself, not from a decoder.
  sharpness(FILE)          mean gradient magnitude and variance of the Laplacian of the luma
                           (0-255): both grow when a picture is sharpened (--sharpen).
  window(OUT, SOURCE)      where a cover crop OUT sits in SOURCE: the offset (x, y, in OUT's
                           pixels) at which SOURCE resized to cover OUT's box matches OUT best
                           (highest normalised correlation of the luma, so a crop converted to
                           sRGB still matches), for --crop against vipsthumbnail --smartcrop.

Commands (each prints one JSON object):
  psnr OUT SOURCE          OUT against reference(SOURCE, OUT's size)
  psnr-files A B           two files of the same size
  delta-e OUT SOURCE       OUT against reference(SOURCE, OUT's size)
  moire OUT SOURCE_SIZE    OUT made from zoneplate(SOURCE_SIZE)
  zoneplate SIZE FILE      writes a SIZExSIZE grey zone plate (PNG)
  metadata FILE            {"blocks": [...]}; empty when the file carries none
  sharpness FILE           {"gradient": ..., "laplacian_var": ...}
  window OUT SOURCE        {"x": ..., "y": ..., "correlation": ...}
  report IMGFETCH DIR      the figures `make bench` prints: imgfetch and vipsthumbnail side by side
  text REPORT.json         that report as text
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageCms, ImageOps

# ---- decoding and the reference ---------------------------------------------------------------

def load_srgb(path):
    """Float HxWx3 in 0..1 (sRGB encoded): orientation applied, the embedded profile converted."""
    img = Image.open(path)
    img.seek(0)
    img = ImageOps.exif_transpose(img)
    icc = img.info.get("icc_profile")
    if img.mode in ("RGBA", "LA", "PA", "P"):
        img = img.convert("RGBA")
        background = Image.new("RGBA", img.size, (255, 255, 255, 255))
        img = Image.alpha_composite(background, img)
    if icc:
        src = ImageCms.ImageCmsProfile(ImageCms.core.profile_frombytes(icc))
        dst = ImageCms.createProfile("sRGB")
        mode = img.mode if img.mode in ("RGB", "L", "CMYK") else "RGB"
        img = ImageCms.profileToProfile(img.convert(mode), src, dst, outputMode="RGB",
                                        renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    img = img.convert("RGB")
    return np.asarray(img, dtype=np.float64) / 255.0


def load_pixels(path):
    """The file's own pixels, float HxWx3 in 0..1, no colour management (an output is sRGB)."""
    img = Image.open(path)
    img.seek(0)
    if img.mode in ("RGBA", "LA", "PA", "P"):
        img = Image.alpha_composite(Image.new("RGBA", img.size, (255, 255, 255, 255)), img.convert("RGBA"))
    return np.asarray(img.convert("RGB"), dtype=np.float64) / 255.0


def lanczos3(x):
    x = np.abs(x)
    out = np.where(x < 3.0, 3.0 * np.sin(np.pi * x) * np.sin(np.pi * x / 3.0) / np.maximum((np.pi * x) ** 2, 1e-12), 0.0)
    return np.where(x < 1e-7, 1.0, out)


def taps(n_in, n_out):
    """Lanczos3 taps for n_in -> n_out samples: (indices, weights), each n_out x n_taps; the
    kernel is stretched by the scale when shrinking, edges are clamped, weights sum to 1."""
    scale = n_in / n_out
    stretch = max(scale, 1.0)
    support = 3.0 * stretch
    centres = (np.arange(n_out) + 0.5) * scale - 0.5
    first = np.floor(centres - support).astype(int)
    n = int(math.ceil(2 * support)) + 2
    idx = first[:, None] + np.arange(n)[None, :]
    w = lanczos3((idx - centres[:, None]) / stretch)
    w /= w.sum(axis=1, keepdims=True)
    return np.clip(idx, 0, n_in - 1), w


def resize_axis0(img, n_out):
    idx, w = taps(img.shape[0], n_out)
    out = np.zeros((n_out,) + img.shape[1:])
    for k in range(idx.shape[1]):
        out += w[:, k].reshape((-1,) + (1,) * (img.ndim - 1)) * img[idx[:, k]]
    return out


def resize(img, width, height):
    """Separable float Lanczos3 (banded: each output reads only its taps)."""
    return np.swapaxes(resize_axis0(np.swapaxes(resize_axis0(img, height), 0, 1), width), 0, 1)


_loaded = {}


def reference(source, width, height):
    if source not in _loaded:
        _loaded.clear()
        _loaded[source] = load_srgb(source)
    return resize(_loaded[source], width, height)

# ---- measures -----------------------------------------------------------------------------------

def psnr(a, b):
    mse = np.mean((a * 255.0 - b * 255.0) ** 2)
    return 99.0 if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def srgb_to_lab(rgb):
    rgb = np.clip(rgb, 0, 1)
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]])
    xyz = lin @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def delta_e00(a, b):
    l1, a1, b1 = np.moveaxis(srgb_to_lab(a), -1, 0)
    l2, a2, b2 = np.moveaxis(srgb_to_lab(b), -1, 0)
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    cm = (c1 + c2) / 2
    g = 0.5 * (1 - np.sqrt(cm ** 7 / (cm ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p, h2p = np.degrees(np.arctan2(b1, a1p)) % 360, np.degrees(np.arctan2(b2, a2p)) % 360
    dl, dc = l2 - l1, c2p - c1p
    dh = h2p - h1p
    dh = np.where(c1p * c2p == 0, 0, np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh)))
    dH = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    lm, cmp_ = (l1 + l2) / 2, (c1p + c2p) / 2
    hs = h1p + h2p
    hm = np.where(c1p * c2p == 0, hs, np.where(np.abs(h1p - h2p) <= 180, hs / 2, np.where(hs < 360, (hs + 360) / 2, (hs - 360) / 2)))
    t = 1 - 0.17 * np.cos(np.radians(hm - 30)) + 0.24 * np.cos(np.radians(2 * hm)) + 0.32 * np.cos(np.radians(3 * hm + 6)) - 0.20 * np.cos(np.radians(4 * hm - 63))
    sl = 1 + 0.015 * (lm - 50) ** 2 / np.sqrt(20 + (lm - 50) ** 2)
    sc, sh = 1 + 0.045 * cmp_, 1 + 0.015 * cmp_ * t
    rt = -2 * np.sqrt(cmp_ ** 7 / (cmp_ ** 7 + 25.0 ** 7)) * np.sin(np.radians(60 * np.exp(-(((hm - 275) / 25) ** 2))))
    return float(np.mean(np.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dH / sh) ** 2 + rt * (dc / sc) * (dH / sh))))


def zoneplate(size):
    """Grey cos(pi r^2 / (sqrt2 size)): the local frequency grows with the radius to 0.5 cycle/px at the corners."""
    c = (size - 1) / 2
    y, x = np.mgrid[0:size, 0:size]
    r2 = (x - c) ** 2 + (y - c) ** 2
    return 0.5 + 0.5 * np.cos(np.pi * r2 / (math.sqrt(2) * size))


def moire(out, source_size):
    grey = out.mean(axis=-1) if out.ndim == 3 else out
    h, w = grey.shape
    k = source_size / w
    cutoff = 1.2 * math.sqrt(2) * source_size / (2 * k)      # source radius where f = 1.2 x output Nyquist
    y, x = np.mgrid[0:h, 0:w]
    r = np.hypot((x + 0.5) * k - source_size / 2, (y + 0.5) * k - source_size / 2)
    mask = r > cutoff
    return float(np.sqrt(np.mean((grey[mask] * 255 - 127.5) ** 2))) if mask.any() else 0.0

# ---- sharpness and crop windows --------------------------------------------------------------------

def luma(path):
    rgb = load_pixels(path) * 255.0
    return rgb @ np.array([0.299, 0.587, 0.114]) if rgb.ndim == 3 else rgb


def sharpness(path):
    y = luma(path)
    gy, gx = np.gradient(y)
    lap = y[1:-1, :-2] + y[1:-1, 2:] + y[:-2, 1:-1] + y[2:, 1:-1] - 4 * y[1:-1, 1:-1]
    return {"gradient": float(np.mean(np.hypot(gx, gy))), "laplacian_var": float(np.var(lap))}


def window(out_path, source):
    out = luma(out_path)
    h, w = out.shape
    src = ImageOps.exif_transpose(Image.open(source)).convert("RGB")
    scale = max(w / src.width, h / src.height)
    big = src.resize((max(w, round(src.width * scale)), max(h, round(src.height * scale))), Image.LANCZOS)
    y = np.asarray(big, dtype=np.float64) @ np.array([0.299, 0.587, 0.114])
    o = (out - out.mean()) / (out.std() or 1)
    best = None
    for dy in range(y.shape[0] - h + 1):
        for dx in range(y.shape[1] - w + 1):
            patch = y[dy:dy + h, dx:dx + w]
            score = float(np.mean(o * (patch - patch.mean()) / (patch.std() or 1)))
            if best is None or score > best["correlation"]:
                best = {"x": dx, "y": dy, "correlation": score}
    return best

# ---- metadata, read from the container -----------------------------------------------------------

def metadata(path):
    b = open(path, "rb").read()
    found = []
    if b[:2] == b"\xff\xd8":
        i = 2
        while i + 4 <= len(b) and b[i] == 0xFF:
            m = b[i + 1]
            if m in (0xD9, 0xDA):
                break
            n = struct.unpack(">H", b[i + 2:i + 4])[0]
            body = b[i + 4:i + 2 + n]
            if m == 0xE1:
                found.append("EXIF" if body.startswith(b"Exif") else "XMP" if b"adobe" in body[:40] else "APP1")
            elif m == 0xE2 and body.startswith(b"ICC_PROFILE"):
                found.append("ICC")
            elif m == 0xED:
                found.append("IPTC")
            elif m == 0xFE:
                found.append("COMMENT")
            i += 2 + n
    elif b[:8] == b"\x89PNG\r\n\x1a\n":
        i = 8
        while i + 8 <= len(b):
            n, t = struct.unpack(">I4s", b[i:i + 8])
            if t in (b"eXIf", b"iCCP", b"iTXt", b"tEXt", b"zTXt"):
                found.append(t.decode())
            i += 12 + n
    elif b[:4] == b"RIFF" and b[8:12] == b"WEBP":
        i = 12
        while i + 8 <= len(b):
            t, n = b[i:i + 4], struct.unpack("<I", b[i + 4:i + 8])[0]
            if t in (b"EXIF", b"XMP ", b"ICCP"):
                found.append(t.decode().strip())
            i += 8 + n + (n & 1)
    elif b[:3] == b"GIF":
        if b"\x21\xfe" in b:
            found.append("COMMENT?")
        if b"XMP DataXMP" in b:
            found.append("XMP")
    elif b[4:8] == b"ftyp":
        for t in (b"Exif", b"mime"):
            if t in b[:4096]:
                found.append(t.decode())
    return found

# ---- the bench report ---------------------------------------------------------------------------

def run(args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def report(imgfetch, corpus):
    """imgfetch and vipsthumbnail side by side on every image of `corpus` (JPEG q100 out, so the
    JPEG path is what is measured), at 100, 320 and 1000 px boxes."""
    tmp = tempfile.mkdtemp(prefix="fidelity-")
    cache = os.path.join(tmp, "cache")
    rows, mismatches, total, delta_e = [], 0, 0, []
    for name in sorted(os.listdir(corpus)):
        src = os.path.join(corpus, name)
        if Image.open(src).info.get("icc_profile") and name.startswith(("icc-", "grey-profile")):
            a, v = os.path.join(tmp, "a.png"), os.path.join(tmp, "v.png")
            run([imgfetch, "get", "--cache-dir", cache, src, "-s", "150x150", "-o", a])
            run(["vipsthumbnail", src, "-s", "150x150>", "-o", v])
            delta_e.append({"image": name, "imgfetch": delta_e00(load_pixels(a), reference(src, *Image.open(a).size)),
                            "vipsthumbnail": delta_e00(load_pixels(v), reference(src, *Image.open(v).size))})
        for box in (100, 320, 1000):
            a, v = os.path.join(tmp, "a.jpg"), os.path.join(tmp, "v.jpg")
            try:
                run([imgfetch, "get", "--cache-dir", cache, src, "-s", f"{box}x{box}", "-q", "100", "-o", a])
                run(["vipsthumbnail", src, "-s", f"{box}x{box}>", "-o", v + "[Q=100]"])
            except subprocess.CalledProcessError:
                continue
            pa, pv = load_pixels(a), load_pixels(v)
            total += 1
            if pa.shape != pv.shape:
                mismatches += 1
            ref = reference(src, pa.shape[1], pa.shape[0])
            rows.append({"image": name, "box": box, "imgfetch": psnr(pa, ref),
                         "vipsthumbnail": psnr(pv, reference(src, pv.shape[1], pv.shape[0]))})
    diffs = [r["imgfetch"] - r["vipsthumbnail"] for r in rows]
    options = pixel_options(imgfetch, corpus, tmp, cache)
    zp = os.path.join(tmp, "zone.png")
    Image.fromarray((zoneplate(2000) * 255 + 0.5).astype(np.uint8)).save(zp)
    zj = os.path.join(tmp, "zone.jpg")
    Image.open(zp).save(zj, quality=100)
    run([imgfetch, "get", "--cache-dir", cache, zj, "-s", "1000", "-q", "100", "-o", os.path.join(tmp, "z.jpg")])
    run(["vipsthumbnail", zj, "-s", "1000x1000>", "-o", os.path.join(tmp, "zv.jpg[Q=100]")])
    return {
        "images": len(rows),
        "psnr_median": float(np.median([r["imgfetch"] for r in rows])) if rows else None,
        "psnr_min": min((r["imgfetch"] for r in rows), default=None),
        "psnr_median_vs_vipsthumbnail": float(np.median(diffs)) if diffs else None,
        "psnr_worst_vs_vipsthumbnail": min(diffs, default=None),
        "worst": min(rows, key=lambda r: r["imgfetch"] - r["vipsthumbnail"]) if rows else None,
        "size_mismatches": mismatches, "size_cases": total,
        "delta_e00": delta_e,
        "moire": moire(load_pixels(os.path.join(tmp, "z.jpg")), 2000),
        "moire_vipsthumbnail": moire(load_pixels(os.path.join(tmp, "zv.jpg")), 2000),
        "options": options,
    }


def pixel_options(imgfetch, corpus, tmp, cache):
    """--crop attention|entropy against vipsthumbnail --smartcrop (crop windows, 200x200 PNG
    cover; -e srgb for a tagged source, as imgfetch converts it), and --sharpen against none (mean
    gradient magnitude, 320 px PNG), per corpus image."""
    crops, sharpen = {"attention": [0, 0], "entropy": [0, 0]}, []
    for name in sorted(os.listdir(corpus)):
        src = os.path.join(corpus, name)
        for mode in crops:
            a, v = os.path.join(tmp, "c.png"), os.path.join(tmp, "cv.png")
            try:
                run([imgfetch, "get", "--cache-dir", cache, src, "-s", "200x200", "--fit", "cover", "--crop", mode, "-o", a])
                # imgfetch converts a tagged source to sRGB before the crop looks at it: so does this.
                export = ["-e", "srgb"] if Image.open(src).info.get("icc_profile") else []
                run(["vipsthumbnail", src, "-s", "200x200>", "--smartcrop", mode, "-o", v] + export)
            except subprocess.CalledProcessError:
                continue
            crops[mode][1] += 1
            wa, wv = window(a, src), window(v, src)
            if (wa["x"], wa["y"]) == (wv["x"], wv["y"]):
                crops[mode][0] += 1
        a, b = os.path.join(tmp, "s.png"), os.path.join(tmp, "p.png")
        try:
            run([imgfetch, "get", "--cache-dir", cache, src, "-s", "320", "--sharpen", "-o", a])
            run([imgfetch, "get", "--cache-dir", cache, src, "-s", "320", "-o", b])
        except subprocess.CalledProcessError:
            continue
        sharpen.append(sharpness(a)["gradient"] / max(sharpness(b)["gradient"], 1e-9))
    return {"crop_windows_as_vipsthumbnail": {m: {"same": c[0], "cases": c[1]} for m, c in crops.items()},
            "sharpen_gradient_ratio_min": min(sharpen, default=None),
            "sharpen_gradient_ratio_median": float(np.median(sharpen)) if sharpen else None}


def text(r):
    """The report as the lines `make bench` prints."""
    f = lambda v, d=1: "n/a" if v is None else f"{v:.{d}f}"
    lines = [
        f"fidelity ({r['images']} image x box cases, JPEG q100, 100/320/1000 px boxes; reference: float Lanczos3 of the full decode through the source's profile)",
        f"  PSNR vs reference: median {f(r['psnr_median'])} dB, min {f(r['psnr_min'])} dB",
        f"  PSNR vs vipsthumbnail's: median {f(r['psnr_median_vs_vipsthumbnail'], 2)} dB, worst {f(r['psnr_worst_vs_vipsthumbnail'], 2)} dB (targets >= -0.25, >= -1.5)"
        + (f" [{r['worst']['image']} at {r['worst']['box']}]" if r.get("worst") else ""),
        f"  size mismatches vs vipsthumbnail: {r['size_mismatches']} of {r['size_cases']}",
        f"  zone plate 2000 -> 1000 moire: {f(r['moire'], 2)} vs vipsthumbnail {f(r['moire_vipsthumbnail'], 2)}"
        + (f" (ratio {r['moire'] / r['moire_vipsthumbnail']:.2f}, target <= 1.3)" if r.get("moire_vipsthumbnail") else ""),
    ]
    o = r.get("options")
    if o:
        same = ", ".join(f"{m} {c['same']} of {c['cases']}" for m, c in o["crop_windows_as_vipsthumbnail"].items())
        lines.append(f"  --crop windows as vipsthumbnail --smartcrop's (200x200 cover): {same}")
        lines.append(f"  --sharpen mean gradient vs without: median x{f(o['sharpen_gradient_ratio_median'], 2)}, min x{f(o['sharpen_gradient_ratio_min'], 2)} (target > 1)")
    for d in r.get("delta_e00", []):
        lines.append(f"  ΔE00 {d['image']} -> sRGB: {d['imgfetch']:.2f} (vipsthumbnail without -e: {d['vipsthumbnail']:.2f}; target <= 1.5)")
    return "\n".join(lines)


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd in ("psnr", "delta-e"):
        out = load_pixels(argv[2])
        ref = reference(argv[3], out.shape[1], out.shape[0])
        value = psnr(out, ref) if cmd == "psnr" else delta_e00(out, ref)
        print(json.dumps({cmd.replace("-", "_"): value, "width": out.shape[1], "height": out.shape[0]}))
    elif cmd == "psnr-files":
        a, b = load_pixels(argv[2]), load_pixels(argv[3])
        print(json.dumps({"psnr": psnr(a, b) if a.shape == b.shape else None}))
    elif cmd == "moire":
        print(json.dumps({"moire": moire(load_pixels(argv[2]), int(argv[3]))}))
    elif cmd == "zoneplate":
        Image.fromarray((zoneplate(int(argv[2])) * 255 + 0.5).astype(np.uint8)).save(argv[3])
    elif cmd == "metadata":
        print(json.dumps({"blocks": metadata(argv[2])}))
    elif cmd == "sharpness":
        print(json.dumps(sharpness(argv[2])))
    elif cmd == "window":
        print(json.dumps(window(argv[2], argv[3])))
    elif cmd == "report":
        print(json.dumps(report(argv[2], argv[3])))
    elif cmd == "text":
        print(text(json.load(open(argv[2]))))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
