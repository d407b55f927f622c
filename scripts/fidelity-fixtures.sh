#!/usr/bin/env bash
# Makes the fidelity fixtures of Tests/Fixtures (committed; run again only to change them).
# Needs the vips CLI, exiftool (libimage-exiftool-perl), icc-profiles-free, colord-data, python3-pil.
set -euo pipefail
cd "$(dirname "$0")/../Tests/Fixtures"
icc=/usr/share/color/icc
vips crop photo.jpg /tmp/fx-crop.v 300 200 300 200
# The same picture in three wide-gamut spaces, each tagged with its profile.
vips icc_transform /tmp/fx-crop.v /tmp/fx-a.v "$icc/colord/AdobeRGB1998.icc" --input-profile srgb --embedded
vips copy /tmp/fx-a.v icc-adobe.jpg[Q=95]
vips icc_transform /tmp/fx-crop.v /tmp/fx-p.v "$icc/colord/ProPhotoRGB.icc" --input-profile srgb --embedded
vips copy /tmp/fx-p.v icc-prophoto.jpg[Q=95]
# Grey pixels tagged with a grey profile (gamma 1.0 ... differs from sRGB's curve).
vips colourspace /tmp/fx-crop.v /tmp/fx-g.v b-w
vips copy /tmp/fx-g.v grey-profile.jpg[Q=95,strip]
exiftool -q -overwrite_original "-icc_profile<=$icc/Gray.icc" grey-profile.jpg
# Everything a camera and an editor leave behind.
vips copy /tmp/fx-crop.v metadata.jpg[Q=90,strip]
exiftool -q -overwrite_original -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E \
  -Make=SecretCam -Model="Model X9" -SerialNumber=SN123456789 -XMP:Creator="Jane Doe" -IPTC:By-line="Jane Doe" \
  -Comment="private comment" metadata.jpg
# Fine detail: a zone plate's corner (frequencies up to Nyquist), with colour.
/usr/bin/python3 - <<'PY'
import numpy as np
from PIL import Image
y, x = np.mgrid[0:400, 0:600].astype(float)
r2 = (x + 900) ** 2 + (y + 1000) ** 2
g = 0.5 + 0.5 * np.cos(np.pi * r2 / (np.sqrt(2) * 2000))
rgb = np.stack([g, 0.5 + 0.5 * np.sin(x / 7.0) * g, 1 - g], axis=-1)
Image.fromarray((rgb * 255 + 0.5).astype(np.uint8)).save("detail.jpg", quality=95)
# Three 60x40 frames, 100/200/300 ms, looping forever.
frames = [Image.new("RGB", (60, 40), c) for c in ((255, 0, 0), (0, 160, 0), (0, 0, 255))]
for i, f in enumerate(frames):
    f.paste((255, 255, 255), (10 * i, 10, 10 * i + 20, 30))
frames[0].save("animated.gif", save_all=True, append_images=frames[1:], duration=[100, 200, 300], loop=0)
PY
# detail.jpg's true 150x100 picture (float Lanczos3 of the full decode).
/usr/bin/python3 - <<'PY'
import sys
sys.path.insert(0, "../../scripts")
import numpy as np
from PIL import Image
import fidelity
ref = fidelity.reference("detail.jpg", 150, 100)
Image.fromarray(np.clip(ref * 255 + 0.5, 0, 255).astype(np.uint8)).save("detail-ref-150.png")
PY
rm -f /tmp/fx-*.v
