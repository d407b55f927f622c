import ImageFetch

/// One page of `cache gallery`: static HTML (every string from the cache HTML-escaped) plus the same
/// entries as JSON for the inline script that filters and sorts them (JSON with `<`, `>`, `&`,
/// U+2028 and U+2029 escaped, so no string can close the script element). No outside assets:
/// it works from file://. The script reports how many images loaded into `data-loaded` on <body>
/// and the "loaded" counter.
struct GalleryPage {
    struct Item {
        var entry: CacheEntry
        /// The image's URL as the page uses it (file:// URL into the cache, or a relative copy).
        var imageURL: String
    }

    var items: [Item]
    var page: Int
    var hasNext: Bool
    var directory: String
    var now: Double

    static func fileName(page: Int) -> String { page == 1 ? "index.html" : "page-\(page).html" }

    func html() -> String {
        var out = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>imgfetch cache, page \(page)</title>
        <style>
        body{font:13px/1.35 system-ui,sans-serif;margin:0;background:#fafafa;color:#222}
        header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:8px 12px;z-index:1}
        h1{font-size:16px;margin:0 0 4px}header p{margin:0 0 6px;color:#555}
        nav a{margin-right:8px}input,select{font:inherit;margin-right:8px}
        main{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:10px;padding:12px}
        figure{margin:0;background:#fff;border:1px solid #ddd;border-radius:4px;padding:6px;overflow:hidden}
        figure[hidden]{display:none}
        .pic{height:160px;display:flex;align-items:center;justify-content:center;background:#eee}
        .pic img{max-width:100%;max-height:160px}
        figcaption{margin-top:4px}.src{font-weight:600;word-break:break-all}.meta{color:#555;overflow-wrap:anywhere}
        </style></head>
        <body data-loaded="0" data-failed="0">
        <header><h1>imgfetch cache</h1>
        <p>\(GalleryPage.escapeHTML(directory)): page \(page), \(items.count) entr\(items.count == 1 ? "y" : "ies") on this page</p>
        \(navigation())
        <input id="filter" type="search" placeholder="filter: source, variant, key" aria-label="filter">
        <select id="sort" aria-label="sort"><option value="key">key</option><option value="age">newest</option>
        <option value="size">largest</option><option value="source">source</option><option value="expires">expiring first</option></select>
        <span>images loaded: <output id="loaded">0</output> of \(items.count)</span>
        </header>
        <main id="grid">

        """
        for (i, item) in items.enumerated() {
            let e = item.entry
            out += "<figure data-i=\"\(i)\"><div class=\"pic\"\(GalleryPage.placeholderAttributes(e))><img src=\"\(GalleryPage.escapeHTML(item.imageURL))\" alt=\"\(GalleryPage.escapeHTML(e.source))\""
            out += " width=\"\(max(0, e.width))\" height=\"\(max(0, e.height))\" style=\"width:auto;height:auto\"></div>"
            out += "<figcaption><div class=\"src\">\(GalleryPage.escapeHTML(e.source))</div>"
            out += "<div class=\"meta\">\(GalleryPage.escapeHTML(e.variant)), \(e.width)x\(e.height) \(GalleryPage.escapeHTML(e.format)), \(Formatting.size(e.bytes))</div>"
            out += "<div class=\"meta\">age \(Formatting.duration(now - e.created)), expires \(GalleryPage.escapeHTML(Formatting.expiry(e, now: now)))</div>"
            out += "<div class=\"meta\">\(String(e.key.prefix(12)))</div></figcaption></figure>\n"
        }
        out += "</main>\n<script type=\"application/json\" id=\"entries\">["
        out += items.map { GalleryPage.scriptSafe(record($0.entry).text) }.joined(separator: ",\n")
        out += "]</script>\n<script>\n" + GalleryPage.script + GalleryPage.placeholderScript + "</script>\n</body></html>\n"
        return out
    }

    func navigation() -> String {
        guard page > 1 || hasNext else { return "" }
        var links: [String] = []
        if page > 1 { links.append("<a href=\"\(GalleryPage.fileName(page: page - 1))\">previous</a>") }
        if hasNext { links.append("<a href=\"\(GalleryPage.fileName(page: page + 1))\">next</a>") }
        links.append("<a href=\"index.html\">first</a>")
        return "<nav>" + links.joined(separator: " ") + "</nav>"
    }

    func record(_ e: CacheEntry) -> JSONObject {
        var o = JSONObject()
        o.add("key", e.key)
        o.add("source", e.source)
        o.add("variant", e.variant)
        o.add("format", e.format)
        o.add("bytes", e.bytes)
        o.add("width", e.width)
        o.add("height", e.height)
        o.add("created", e.created)
        o.add("expires", e.expires)
        return o
    }

    /// Text and attribute values: `& < > " '` as character references.
    static func escapeHTML(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 38 || $0 == 60 || $0 == 62 || $0 == 34 || $0 == 39 }) else { return s }
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// JSON text made safe inside <script>: `<`, `>`, `&` and the JS line separators as \u escapes
    /// (valid JSON, the same strings once parsed), so `</script>` or `<!--` can never appear.
    static func scriptSafe(_ json: String) -> String {
        var out = ""
        for c in json.unicodeScalars {
            switch c {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static let script = """
    (function () {
      "use strict";
      var entries = JSON.parse(document.getElementById("entries").textContent);
      var grid = document.getElementById("grid");
      var figures = Array.prototype.slice.call(grid.querySelectorAll("figure"));
      var filter = document.getElementById("filter"), sort = document.getElementById("sort");
      var counter = document.getElementById("loaded"), loaded = 0, failed = 0;
      function report() {
        counter.textContent = String(loaded);
        document.body.setAttribute("data-loaded", String(loaded));
        document.body.setAttribute("data-failed", String(failed));
      }
      figures.forEach(function (figure) {
        var img = figure.querySelector("img");
        function done(ok) { if (ok) { loaded++; } else { failed++; } report(); }
        if (img.complete) { done(img.naturalWidth > 0); return; }
        img.addEventListener("load", function () { done(true); });
        img.addEventListener("error", function () { done(false); });
      });
      var orders = {
        key: function (a, b) { return a.key < b.key ? -1 : a.key > b.key ? 1 : 0; },
        age: function (a, b) { return b.created - a.created; },
        size: function (a, b) { return b.bytes - a.bytes; },
        source: function (a, b) { return a.source < b.source ? -1 : a.source > b.source ? 1 : orders.key(a, b); },
        expires: function (a, b) { return (a.expires === null ? Infinity : a.expires) - (b.expires === null ? Infinity : b.expires); }
      };
      function apply() {
        var text = filter.value.toLowerCase(), order = orders[sort.value] || orders.key;
        figures.slice().sort(function (a, b) {
          return order(entries[a.getAttribute("data-i")], entries[b.getAttribute("data-i")]);
        }).forEach(function (figure) {
          var e = entries[figure.getAttribute("data-i")];
          figure.hidden = text !== "" && (e.source + " " + e.variant + " " + e.key).toLowerCase().indexOf(text) < 0;
          grid.appendChild(figure);
        });
      }
      filter.addEventListener("input", apply);
      sort.addEventListener("change", apply);
      report();
    })();

    """
}
