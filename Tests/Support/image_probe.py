"""Prints what the placeholder and -f auto tests check of image files, as one JSON object per file:
its format (as Pillow reads it), size, frames, and the smallest alpha value (255 when it has no alpha).
With --make DIR: writes the test pictures there first (quad.jpg: four coloured quadrants;
quad-alpha.png: the same with a transparent disc in the middle)."""
import json
import sys

from PIL import Image, ImageDraw


def make(directory):
    im = Image.new("RGBA", (400, 300), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.rectangle([0, 0, 199, 149], fill=(220, 30, 30, 255))
    d.rectangle([200, 0, 399, 149], fill=(30, 200, 40, 255))
    d.rectangle([0, 150, 199, 299], fill=(30, 40, 220, 255))
    d.rectangle([200, 150, 399, 299], fill=(240, 220, 20, 255))
    im.convert("RGB").save(directory + "/quad.jpg", quality=92)
    d.ellipse([100, 50, 300, 250], fill=(0, 0, 0, 0))
    im.save(directory + "/quad-alpha.png")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--make"]:
        make(args[1])
        args = args[2:]
    for path in args:
        im = Image.open(path)
        im.load()
        alpha = im.convert("RGBA").getextrema()[3][0] if "A" in im.getbands() or "transparency" in im.info else 255
        print(json.dumps({"format": (im.format or "").lower(), "width": im.size[0], "height": im.size[1],
                          "frames": getattr(im, "n_frames", 1), "min_alpha": alpha}))


if __name__ == "__main__":
    main()
