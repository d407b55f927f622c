import ImageFetch

extension GalleryPage {
    /// The entry's placeholders (when it has them), painted behind the picture until it loads: its
    /// mean colour at once, then its ThumbHash drawn by `placeholderScript` (`data-thumbhash`).
    static func placeholderAttributes(_ e: CacheEntry) -> String {
        guard let p = e.placeholders else { return "" }
        return " style=\"background-color:\(p.averageColorHex)\" data-thumbhash=\"\(escapeHTML(p.thumbhash))\" data-blurhash=\"\(escapeHTML(p.blurhash))\""
    }

    /// Draws each `data-thumbhash` (evanw/thumbhash's decoder, `thumbHashToRGBA`) into a canvas
    /// behind a picture that has not loaded yet; removed when it loads. A bad hash draws nothing.
    static let placeholderScript = """
    (function () {
      "use strict";
      function decode(hash) {
        var PI = Math.PI, min = Math.min, max = Math.max, cos = Math.cos, round = Math.round;
        var h24 = hash[0] | (hash[1] << 8) | (hash[2] << 16), h16 = hash[3] | (hash[4] << 8);
        var lDc = (h24 & 63) / 63, pDc = ((h24 >> 6) & 63) / 31.5 - 1, qDc = ((h24 >> 12) & 63) / 31.5 - 1;
        var lScale = ((h24 >> 18) & 31) / 31, hasAlpha = h24 >> 23;
        var pScale = ((h16 >> 3) & 63) / 63, qScale = ((h16 >> 9) & 63) / 63, landscape = h16 >> 15;
        var lx = max(3, landscape ? (hasAlpha ? 5 : 7) : h16 & 7), ly = max(3, landscape ? h16 & 7 : (hasAlpha ? 5 : 7));
        var aDc = hasAlpha ? (hash[5] & 15) / 15 : 1, aScale = (hash[5] >> 4) / 15;
        var start = hasAlpha ? 6 : 5, index = 0;
        function channel(nx, ny, scale) {
          var ac = [];
          for (var cy = 0; cy < ny; cy++)
            for (var cx = cy ? 0 : 1; cx * ny < nx * (ny - cy); cx++, index++)
              ac.push((((hash[start + (index >> 1)] >> ((index & 1) << 2)) & 15) / 7.5 - 1) * scale);
          return ac;
        }
        var lAc = channel(lx, ly, lScale), pAc = channel(3, 3, pScale * 1.25), qAc = channel(3, 3, qScale * 1.25);
        var aAc = hasAlpha ? channel(5, 5, aScale) : null;
        var alx = landscape ? (hasAlpha ? 5 : 7) : hash[3] & 7, aly = landscape ? hash[3] & 7 : (hasAlpha ? 5 : 7);
        var ratio = alx / aly, w = round(ratio > 1 ? 32 : 32 * ratio), h = round(ratio > 1 ? 32 / ratio : 32);
        var rgba = new Uint8ClampedArray(w * h * 4), fx = [], fy = [];
        for (var y = 0, i = 0; y < h; y++) {
          for (var x = 0; x < w; x++, i += 4) {
            var l = lDc, p = pDc, q = qDc, a = aDc, cx, cy, j, n, f2;
            for (cx = 0, n = max(lx, hasAlpha ? 5 : 3); cx < n; cx++) fx[cx] = cos(PI / w * (x + 0.5) * cx);
            for (cy = 0, n = max(ly, hasAlpha ? 5 : 3); cy < n; cy++) fy[cy] = cos(PI / h * (y + 0.5) * cy);
            for (cy = 0, j = 0; cy < ly; cy++)
              for (cx = cy ? 0 : 1, f2 = fy[cy] * 2; cx * ly < lx * (ly - cy); cx++, j++) l += lAc[j] * fx[cx] * f2;
            for (cy = 0, j = 0; cy < 3; cy++)
              for (cx = cy ? 0 : 1, f2 = fy[cy] * 2; cx < 3 - cy; cx++, j++) { p += pAc[j] * fx[cx] * f2; q += qAc[j] * fx[cx] * f2; }
            if (aAc)
              for (cy = 0, j = 0; cy < 5; cy++)
                for (cx = cy ? 0 : 1, f2 = fy[cy] * 2; cx < 5 - cy; cx++, j++) a += aAc[j] * fx[cx] * f2;
            var b = l - 2 / 3 * p, r = (3 * l - b + q) / 2, g = r - q;
            rgba[i] = max(0, 255 * min(1, r)); rgba[i + 1] = max(0, 255 * min(1, g));
            rgba[i + 2] = max(0, 255 * min(1, b)); rgba[i + 3] = max(0, 255 * min(1, a));
          }
        }
        return { w: w, h: h, rgba: rgba };
      }
      Array.prototype.forEach.call(document.querySelectorAll(".pic[data-thumbhash]"), function (pic) {
        var img = pic.querySelector("img");
        if (!img || (img.complete && img.naturalWidth > 0)) return;
        try {
          var text = atob(pic.getAttribute("data-thumbhash")), bytes = [];
          for (var k = 0; k < text.length; k++) bytes.push(text.charCodeAt(k));
          if (bytes.length < 5) return;
          var d = decode(bytes), canvas = document.createElement("canvas");
          canvas.width = d.w; canvas.height = d.h;
          canvas.getContext("2d").putImageData(new ImageData(d.rgba, d.w, d.h), 0, 0);
          pic.style.backgroundImage = "url(" + canvas.toDataURL() + ")";
          pic.style.backgroundSize = "contain";
          pic.style.backgroundRepeat = "no-repeat";
          pic.style.backgroundPosition = "center";
          img.addEventListener("load", function () { pic.style.backgroundImage = ""; });
        } catch (e) { /* a malformed hash: the mean colour stays */ }
      });
    })();

    """
}
