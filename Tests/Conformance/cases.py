"""imgfetch's own conformance scenarios for RFC 9111, one per test id of the public suite
http-tests/cache-tests (commit b55b8bd) that a private command-line cache can express.

Each case: (suite id, kind, group, steps). kind is the suite's: "required", "optimal" or "check".
A step is what the scripted server answers to the step's request (status, header fields, a small
JPEG body unless body="text"), the flags `imgfetch get` runs with, whether to wait afterwards, and
what is expected of it (a pause of True waits PAUSE seconds, a number that many):
  cached       the image came from the cache (a hit, or a stale entry served), or, when the response
               is not an image, the server saw no request
  not_cached   the server saw the request and its answer was used
  etag / lm    revalidated: a conditional request (If-None-Match / If-Modified-Since) and a 304
  failed       imgfetch failed and served nothing (no stale copy)
A number as a header value is an HTTP-date that many seconds from the response (negative: past).
The data is this project's own: lifetimes and offsets differ from the suite's where that does not
change what is tested.
"""

R, O, C = "required", "optimal", "check"
PAUSE = 3.2  # seconds a "pause" step waits: longer than the 1-2 s lifetimes below


def step(headers=(), status=200, expect=None, pause=False, body="image", disconnect=False, validate=False,
         args=(), request_if=None):
    return {"headers": [list(h) for h in headers], "status": status, "expect": expect, "pause": pause,
            "body": body, "disconnect": disconnect, "validate": validate, "args": list(args),
            "request_if": request_if}


def two(headers, expect, status=200, pause=True, args=(), body="image"):
    """The common shape: a response is stored, (a pause), then a second request."""
    return [step(headers, status=status, pause=pause, body=body), step(expect=expect, args=args, status=status, body=body)]


def ma(value):
    return [("Cache-Control", value)]


CASES = []


def case(test_id, kind, group, steps):
    CASES.append((test_id, kind, group, steps))


# --- freshness: Cache-Control lifetimes and their parsing (cc-freshness, cc-parse, expires) ---------
case("freshness-none", C, "freshness", two([], "not_cached"))
case("freshness-max-age", O, "freshness", two(ma("max-age=7200"), "cached"))
case("freshness-max-age-stale", R, "freshness", two([("Cache-Control", "max-age=1"), ("Date", 0)], "not_cached"))
case("freshness-max-age-0", R, "freshness", two(ma("max-age=0"), "not_cached"))
case("freshness-max-age-max-minus-1", O, "freshness", two(ma("max-age=2147483647"), "cached"))
case("freshness-max-age-max", O, "freshness", two(ma("max-age=2147483648"), "cached"))
case("freshness-max-age-max-plus-1", O, "freshness", two(ma("max-age=2147483649"), "cached"))
case("freshness-max-age-max-plus", O, "freshness", two(ma("max-age=123456789012"), "cached"))
case("freshness-max-age-age", R, "freshness",
     two([("Date", 0), ("Cache-Control", "max-age=1800"), ("Age", "3600")], "not_cached"))
case("freshness-max-age-date", C, "freshness", two([("Date", -5400), ("Cache-Control", "max-age=1800")], "not_cached"))
case("freshness-max-age-expires", O, "freshness",
     two([("Cache-Control", "max-age=7200"), ("Expires", -3600), ("Date", 0)], "cached"))
case("freshness-max-age-expires-invalid", O, "freshness",
     two([("Cache-Control", "max-age=7200"), ("Expires", "0"), ("Date", 0)], "cached"))
case("freshness-max-age-0-expires", R, "freshness",
     two([("Expires", 7200), ("Cache-Control", "max-age=0"), ("Date", 0)], "not_cached"))
case("freshness-max-age-extension", O, "freshness", two(ma("imgfetch-ext, max-age=7200"), "cached"))
case("freshness-max-age-case-insenstive", O, "freshness", two(ma("mAx-AgE=7200"), "cached"))
case("freshness-max-age-negative", R, "freshness", two(ma("max-age=-60"), "not_cached"))
case("freshness-max-age-s-maxage-private", R, "freshness", two(ma("s-maxage=7200, max-age=1"), "not_cached"))
case("freshness-max-age-s-maxage-private-multiple", R, "freshness",
     two([("Cache-Control", "s-maxage=7200"), ("Cache-Control", "max-age=1")], "not_cached"))
case("freshness-max-age-two-fresh-stale-sameline", C, "freshness", two(ma("max-age=7200, max-age=1"), "cached"))
case("freshness-max-age-two-fresh-stale-sepline", C, "freshness",
     two([("Cache-Control", "max-age=7200"), ("Cache-Control", "max-age=1")], "cached"))
case("freshness-max-age-two-stale-fresh-sameline", C, "freshness", two(ma("max-age=1, max-age=7200"), "cached"))
case("freshness-max-age-two-stale-fresh-sepline", C, "freshness",
     two([("Cache-Control", "max-age=1"), ("Cache-Control", "max-age=7200")], "cached"))
case("freshness-max-age-quoted", C, "freshness", two(ma('max-age="7200"'), "cached"))
case("freshness-max-age-ignore-quoted", R, "freshness", two(ma('ext="max-age=7200", max-age=1'), "not_cached"))
case("freshness-max-age-ignore-quoted-rev", R, "freshness", two(ma('max-age=1, ext="max-age=7200"'), "not_cached"))
case("freshness-max-age-space-before-equals", C, "freshness", two(ma("max-age =7200"), "not_cached"))
case("freshness-max-age-space-after-equals", C, "freshness", two(ma("max-age= 7200"), "not_cached"))
case("freshness-max-age-leading-zero", R, "freshness", two(ma("max-age=0007200"), "cached"))
case("freshness-max-age-single-quoted", R, "freshness", two(ma("max-age='7200'"), "not_cached"))
case("freshness-max-age-decimal-zero", C, "freshness", two(ma("max-age=7200.0"), "cached"))
case("freshness-max-age-decimal-five", C, "freshness", two(ma("max-age=7200.5"), "cached"))
case("freshness-max-age-a100", C, "freshness", two(ma("max-age=b7200"), "cached"))
case("freshness-max-age-100a", C, "freshness", two(ma("max-age=7200b"), "cached"))
case("freshness-expires-future", O, "freshness", two([("Expires", 86400 * 20), ("Date", 0)], "cached"))
case("freshness-expires-past", R, "freshness", two([("Expires", -86400 * 20), ("Date", 0)], "not_cached"))
case("freshness-expires-present", R, "freshness", two([("Expires", 0), ("Date", 0)], "not_cached", pause=False))
case("freshness-expires-old-date", R, "freshness", two([("Expires", 200), ("Date", 500)], "not_cached"))
case("freshness-expires-invalid", R, "freshness", two([("Expires", "0"), ("Date", 0)], "not_cached"))
case("freshness-expires-invalid-date", O, "freshness", two([("Date", "bar"), ("Expires", 20)], "cached", pause=False))
case("freshness-expires-age-slow-date", R, "freshness",
     two([("Date", -20), ("Expires", 20), ("Age", "50")], "not_cached", pause=False))
case("freshness-expires-age-fast-date", R, "freshness",
     two([("Date", 20), ("Expires", 40), ("Age", "30")], "not_cached", pause=False))

# --- age-parse: the Age field --------------------------------------------------------------------
def aged(age_lines, lifetime=1800):
    return [("Date", 0), ("Cache-Control", "max-age=%d" % lifetime)] + [("Age", a) for a in age_lines]


case("age-parse-nonnumeric", R, "age-parse", two(aged(["xyz"]), "cached"))
case("age-parse-negative", R, "age-parse", two(aged(["-3600"]), "cached"))
case("age-parse-float", R, "age-parse", two(aged(["3600.0"]), "cached"))
case("age-parse-large-minus-one", R, "age-parse", two(aged(["2147483647"]), "not_cached"))
case("age-parse-large", R, "age-parse", two(aged(["2147483648"]), "not_cached"))
case("age-parse-larger", R, "age-parse", two(aged(["2147483649"]), "not_cached"))
case("age-parse-suffix", R, "age-parse", two(aged(["3600, 0"]), "not_cached"))
case("age-parse-prefix", R, "age-parse", two(aged(["0, 3600"]), "cached"))
case("age-parse-suffix-twoline", R, "age-parse", two(aged(["3600", "0"]), "not_cached"))
case("age-parse-prefix-twoline", R, "age-parse", two(aged(["0", "3600"]), "cached"))
case("age-parse-dup-0", R, "age-parse", two(aged(["0, 0"]), "cached"))
case("age-parse-dup-0-twoline", R, "age-parse", two(aged(["0", "0"]), "cached"))
case("age-parse-dup-old", R, "age-parse", two(aged(["1800", "1800"], lifetime=5000), "cached"))
case("age-parse-parameter", C, "age-parse", two(aged(["3600;x=y"]), "not_cached"))
case("age-parse-numeric-parameter", C, "age-parse", two(aged(["3600;x=222"]), "not_cached"))

# --- expires-parse: HTTP-date forms ---------------------------------------------------------------
def exp(value):
    return [("Expires", value), ("Date", 0)]


case("freshness-expires-32bit", O, "expires-parse", two(exp("Tue, 19 Jan 2038 14:14:08 GMT"), "cached"))
case("freshness-expires-far-future", O, "expires-parse", two(exp("Sat, 01 Jan 2280 00:00:00 GMT"), "cached"))
case("freshness-expires-rfc850", O, "expires-parse", two(exp("Wednesday, 17-Aug-50 03:04:05 GMT"), "cached"))
case("freshness-expires-ansi-c", O, "expires-parse", two(exp("Wed Aug  3 03:04:05 2050"), "cached"))
case("freshness-expires-wrong-case-weekday", O, "expires-parse", two(exp("WED, 17 Aug 2050 03:04:05 GMT"), "cached"))
case("freshness-expires-wrong-case-month", O, "expires-parse", two(exp("Wed, 17 aUG 2050 03:04:05 GMT"), "cached"))
case("freshness-expires-wrong-case-tz", O, "expires-parse", two(exp("Wed, 17 Aug 2050 03:04:05 gmt"), "cached"))
case("freshness-expires-invalid-utc", R, "expires-parse", two(exp("Wed, 17 Aug 2050 03:04:05 UTC"), "not_cached"))
case("freshness-expires-invalid-aest", R, "expires-parse", two(exp("Wed, 17 Aug 2050 03:04:05 AEST"), "not_cached"))
case("freshness-expires-invalid-2-digit-year", R, "expires-parse", two(exp("Wed, 17 Aug 50 03:04:05 GMT"), "not_cached"))
case("freshness-expires-invalid-no-comma", R, "expires-parse", two(exp("Wed 17 Aug 2050 03:04:05 GMT"), "not_cached"))
case("freshness-expires-invalid-multiple-spaces", R, "expires-parse",
     two(exp("Wed, 17  Aug  2050 03:04:05 GMT"), "not_cached", pause=False))
case("freshness-expires-invalid-date-dashes", R, "expires-parse",
     two(exp("Wed, 17-Aug-2050 03:04:05 GMT"), "not_cached", pause=False))
case("freshness-expires-invalid-time-periods", R, "expires-parse",
     two(exp("Wed, 17 Aug 2050 03.04.05 GMT"), "not_cached", pause=False))
case("freshness-expires-invalid-1-digit-hour", R, "expires-parse",
     two(exp("Wed, 17 Aug 2050 3:04:05 GMT"), "not_cached", pause=False))
case("freshness-expires-invalid-multiple-lines", R, "expires-parse",
     two([("Expires", "Wed, 17 Aug 2050 03:04:05 GMT"), ("Expires", "Wed, 17 Aug 2050 03:04:06 GMT"), ("Date", 0)],
         "not_cached", pause=False))

# --- heuristic: statuses that may be given a heuristic lifetime --------------------------------------
HEURISTIC = [(200, O, "cached"), (201, R, "not_cached"), (202, R, "not_cached"), (203, O, "cached"),
             (403, R, "not_cached"), (404, O, "cached"), (405, O, "cached"), (410, O, "cached"),
             (414, O, "cached"), (501, O, "cached"), (502, R, "not_cached"), (503, R, "not_cached"),
             (504, R, "not_cached"), (599, R, "not_cached")]
for code, kind, expect in HEURISTIC:
    case("heuristic-%d-%s" % (code, expect), kind, "heuristic",
         two([("Last-Modified", -43200), ("Date", 0)], expect, status=code, pause=False))
case("heuristic-599-cached", O, "heuristic",
     two([("Last-Modified", -43200), ("Date", 0), ("Cache-Control", "public")], "cached", status=599, pause=False))
for delta in [5, 10, 30, 60, 300, 600, 1200, 1800, 3600, 43200, 86400]:
    case("heuristic-delta-%d" % delta, C, "heuristic", two([("Last-Modified", -delta), ("Date", 0)], "cached"))

# --- status: explicit freshness on any status ------------------------------------------------------
for code in [200, 203, 299, 400, 404, 410, 499, 500, 502, 503, 504, 599]:
    case("status-%d-fresh" % code, O, "status", two([("Cache-Control", "max-age=90000"), ("Date", 0)], "cached", status=code))
    case("status-%d-stale" % code, R, "status",
         two([("Expires", -4000), ("Last-Modified", -90000), ("Date", 0)], "not_cached", status=code))
case("status-599-must-understand", R, "status",
     two(ma("max-age=7200, no-store, must-understand"), "not_cached", status=599, pause=False))
case("status-200-must-understand", O, "status",
     two(ma("max-age=7200, no-store, must-understand"), "cached", pause=False))

# --- validation: conditional requests --------------------------------------------------------------
def validated(etag, sent):
    return [step([("Cache-Control", "max-age=1"), ("Date", 0), ("ETag", etag)], pause=True),
            step([("Cache-Control", "max-age=1"), ("Date", 0), ("ETag", etag)], validate=True, expect="etag",
                 request_if=sent)]


case("conditional-etag-strong-generate", O, "validation", validated('"v1-strong"', '"v1-strong"'))
case("conditional-etag-weak-generate-weak", O, "validation", validated('W/"v1-weak"', 'W/"v1-weak"'))
case("conditional-etag-strong-generate-unquoted", C, "validation", validated("v1-bare", '"v1-bare"'))

# --- directives: Cache-Control response and request directives, stale responses, Pragma -----------
case("cc-resp-private-private", O, "directives", two(ma("private, max-age=7200"), "cached", pause=False))
case("cc-resp-no-store", R, "directives", two(ma("no-store"), "not_cached", pause=False))
case("cc-resp-no-store-case-insensitive", R, "directives", two(ma("NO-sToRe"), "not_cached", pause=False))
case("cc-resp-no-store-fresh", R, "directives",
     two([("Cache-Control", "max-age=7200, no-store"), ("Expires", 7200), ("Date", 0)], "not_cached", pause=False))
for test_id, second in [("cc-resp-no-store-old-new", "no-store"), ("cc-resp-no-store-old-max-age", "no-store, max-age=0")]:
    case(test_id, R, "directives",
         [step([("Cache-Control", "max-age=7200"), ("Expires", 7200), ("Date", 0)], pause=True),
          step([("Cache-Control", second), ("Date", 0)], pause=True),
          step(expect="cached")])
case("cc-resp-no-cache", R, "directives",
     two([("Cache-Control", "max-age=7200, no-cache"), ("Expires", 7200), ("Date", 0)], "not_cached", pause=False))
case("cc-resp-no-cache-case-insensitive", R, "directives",
     two([("Cache-Control", "max-age=7200, nO-CaChE"), ("Expires", 7200), ("Date", 0)], "not_cached", pause=False))
case("cc-resp-no-cache-revalidate", O, "directives",
     [step([("Cache-Control", "no-cache"), ("ETag", '"nc-1"')]),
      step([("Cache-Control", "no-cache"), ("ETag", '"nc-1"')], validate=True, expect="etag")])
case("cc-resp-no-cache-revalidate-fresh", O, "directives",
     [step([("Cache-Control", "max-age=7200, no-cache"), ("Expires", 7200), ("Date", 0), ("ETag", '"nc-2"')]),
      step([("Cache-Control", "max-age=7200, no-cache"), ("ETag", '"nc-2"')], validate=True, expect="etag")])
case("cc-resp-must-revalidate-fresh", O, "directives",
     two([("Cache-Control", "max-age=7200, must-revalidate"), ("ETag", '"mr-1"')], "cached", pause=False))
case("cc-resp-must-revalidate-stale", R, "directives",
     [step([("Cache-Control", "max-age=5, must-revalidate"), ("ETag", '"mr-2"')]),
      step([("Cache-Control", "max-age=5, must-revalidate"), ("ETag", '"mr-2"')], expect="cached", pause=6),
      step([("Cache-Control", "max-age=5, must-revalidate"), ("ETag", '"mr-2"')], validate=True, expect="etag")])
case("stale-close", C, "directives", [step([("Cache-Control", "max-age=1"), ("Date", 0)], pause=True),
                                      step(disconnect=True, expect="cached")])
case("stale-503", C, "directives", [step([("Cache-Control", "max-age=1"), ("Date", 0)], pause=True),
                                    step(status=503, body="text", expect="cached")])
case("stale-while-revalidate", O, "directives",
     two([("Cache-Control", "max-age=1, stale-while-revalidate=3600"), ("ETag", '"swr-1"')], "cached"))
case("stale-while-revalidate-window", R, "directives",
     [step([("Cache-Control", "max-age=1, stale-while-revalidate=5"), ("ETag", '"swr-2"')], pause=True),
      step([("Cache-Control", "no-cache"), ("ETag", '"swr-3"')], expect="cached", pause=True),
      step(expect="not_cached")])
case("stale-sie-close", C, "directives", [step(ma("max-age=1, stale-if-error=90"), pause=True),
                                          step(disconnect=True, expect="cached")])
case("stale-sie-503", C, "directives", [step(ma("max-age=1, stale-if-error=90"), pause=True),
                                        step(status=503, body="text", expect="cached")])
case("stale-close-must-revalidate", R, "directives", [step(ma("max-age=1, must-revalidate"), pause=True),
                                                      step(disconnect=True, expect="failed")])
case("stale-close-no-cache", R, "directives", [step(ma("max-age=1, no-cache"), pause=True),
                                               step(disconnect=True, expect="failed")])
# Request directives, as the options that ask for the same thing (the suite's "adapted" ids).
case("ccreq-ma0", C, "directives", two([("Cache-Control", "max-age=90000"), ("Date", 0)], "not_cached",
                                        args=["--force-refresh"]))
case("ccreq-max-stale", C, "directives", two([("Cache-Control", "max-age=1"), ("Date", 0)], "cached", args=["--offline"]))
case("ccreq-max-stale-age", C, "directives", two([("Cache-Control", "max-age=1000"), ("Age", "1500")], "cached",
                                                  args=["--offline"], pause=False))
case("ccreq-no-cache", C, "directives", two(ma("max-age=7200"), "not_cached", args=["--force-refresh"], pause=False))
case("ccreq-no-cache-lm", C, "directives",
     [step([("Cache-Control", "max-age=7200"), ("Last-Modified", -9000), ("Date", 0)]),
      step([("Cache-Control", "max-age=7200"), ("Last-Modified", -9000), ("Date", 0)], validate=True, expect="lm",
           args=["--force-refresh"])])
case("ccreq-no-cache-etag", C, "directives",
     [step([("Cache-Control", "max-age=7200"), ("ETag", '"rq-1"')]),
      step([("Cache-Control", "max-age=7200"), ("ETag", '"rq-1"')], validate=True, expect="etag",
           args=["--force-refresh"])])
case("ccreq-oic", C, "directives", [step(expect="failed_unsent", args=["--cache-only"])])
case("pragma-response-no-cache", C, "directives", two([("Cache-Control", "max-age=7200"), ("Pragma", "no-cache")],
                                                       "cached", pause=False))
case("pragma-response-no-cache-heuristic", C, "directives",
     two([("Date", 0), ("Last-Modified", -9000), ("Pragma", "no-cache")], "cached", pause=False))
case("pragma-response-extension", C, "directives",
     two([("Cache-Control", "max-age=7200"), ("Pragma", "imgfetch-extension")], "cached", pause=False))

# --- vary (the suite's request headers dropped: imgfetch sends none of them) ------------------------
def varying(value_lines):
    return [("Cache-Control", "max-age=6000"), ("Last-Modified", -2000), ("Date", 0)] + [("Vary", v) for v in value_lines]


case("vary-match", O, "vary", two(varying(["Foo"]), "cached", pause=False))
case("vary-2-match", O, "vary", two(varying(["Foo, Bar"]), "cached", pause=False))
case("vary-3-match", O, "vary", two(varying(["Foo, Bar, Baz"]), "cached", pause=False))
case("vary-3-omit", O, "vary", two(varying(["Foo, Bar, Baz"]), "cached", pause=False))
case("vary-star", R, "vary", two(varying(["*"]), "not_cached", pause=False))
case("vary-syntax-star", R, "vary", two(varying(["*"]), "not_cached", pause=False))
case("vary-syntax-star-star", R, "vary", two(varying(["*, *"]), "not_cached", pause=False))
case("vary-syntax-star-star-lines", R, "vary", two(varying(["*", "*"]), "not_cached", pause=False))
case("vary-syntax-empty-star", R, "vary", two(varying([", *"]), "not_cached", pause=False))
case("vary-syntax-empty-star-lines", R, "vary", two(varying(["", "*"]), "not_cached", pause=False))
case("vary-syntax-star-foo", R, "vary", two(varying(["*, Foo"]), "not_cached", pause=False))
case("vary-syntax-foo-star", R, "vary", two(varying(["Foo, *"]), "not_cached", pause=False))

# --- other ------------------------------------------------------------------------------------------
case("query-args-different", R, "other",
     [step([("Cache-Control", "max-age=90000"), ("Date", 0)], pause=True),
      step(expect="not_cached", args=["@query=q=other"])])
case("query-args-same", O, "other",
     [step([("Cache-Control", "max-age=90000"), ("Date", 0)], pause=True),
      step(expect="cached")])
case("other-heuristic-content-disposition-attachment", C, "other",
     two([("Last-Modified", -90000), ("Date", 0), ("Content-Disposition", "attachment; filename=a.jpg")], "cached",
         pause=False))
case("other-fresh-content-disposition-attachment", C, "other",
     two([("Cache-Control", "max-age=90000"), ("Date", 0), ("Content-Disposition", "attachment; filename=a.jpg")],
         "cached"))
case("other-set-cookie", O, "other", two([("Cache-Control", "max-age=90000"), ("Date", 0), ("Set-Cookie", "k=v")], "cached"))

# Cases imgfetch fails on purpose, and why (each a documented choice; see the man page, CACHING).
KNOWN_FAILURES = {
    "freshness-none": "--ttl (default 7d) is the heuristic lifetime of a 200 without any freshness information",
    "freshness-max-age-two-stale-fresh-sameline": "of two max-age directives the first is used (RFC 9111 4.2.1)",
    "freshness-max-age-two-stale-fresh-sepline": "of two max-age directives the first is used (RFC 9111 4.2.1)",
    "freshness-max-age-decimal-zero": "an invalid max-age makes the response stale (RFC 9111 4.2.1)",
    "freshness-max-age-decimal-five": "an invalid max-age makes the response stale (RFC 9111 4.2.1)",
    "freshness-max-age-a100": "an invalid max-age makes the response stale (RFC 9111 4.2.1)",
    "freshness-max-age-100a": "an invalid max-age makes the response stale (RFC 9111 4.2.1)",
    "conditional-etag-strong-generate-unquoted": "an ETag is sent back exactly as the server wrote it",
    "stale-close": "a stale entry is served on a failed request only with stale-if-error, or when unreachable",
    "stale-503": "a stale entry is served on a 503 only with stale-if-error",
    "ccreq-no-cache-lm": "--force-refresh downloads unconditionally",
    "ccreq-no-cache-etag": "--force-refresh downloads unconditionally",
}

# --- probes: behaviours outside the suite that issue 10 found wrong; not in the suite's figures ----
PROBES = []


def probe(name, steps):
    PROBES.append((name, "probe", "probes", steps))


probe("probe-no-store-on-an-earlier-line",
      two([("Cache-Control", "no-store"), ("Cache-Control", "max-age=7200")], "not_cached", pause=False))
probe("probe-bare-304-keeps-max-age",
      [step([("Cache-Control", "max-age=4"), ("ETag", '"p-1"')], pause=5),
       step([("ETag", '"p-1"')], validate=True, expect="etag"),
       step(expect="cached", pause=5),
       step([("ETag", '"p-1"')], validate=True, expect="etag")])
probe("probe-bare-304-keeps-no-cache",
      [step([("Cache-Control", "no-cache"), ("ETag", '"p-2"')]),
       step([("ETag", '"p-2"')], validate=True, expect="etag"),
       step([("ETag", '"p-2"')], validate=True, expect="etag")])
probe("probe-age-behind-a-cdn",
      two([("Date", 0), ("Cache-Control", "max-age=600"), ("Age", "599")], "not_cached", pause=True))
probe("probe-s-maxage-is-for-shared-caches",
      two(ma("max-age=1, s-maxage=86400"), "not_cached"))
