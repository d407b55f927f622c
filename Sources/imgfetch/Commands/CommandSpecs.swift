import ArgumentKit
import ImageFetch

/// The command tree: every command, option and help text. `--help` and the man page follow it.
enum Specs {
    static let retrieval: [OptionSpec] = [
        .value("size", short: "s", valueName: "WxH", help: "Fit the image inside the box (also W or xH), keeping its aspect ratio; never upscale."),
        .value("fit", valueName: "inside|cover", help: "cover fills the box exactly, cropping the overflow.", defaultDescription: "inside"),
        .value("format", short: "f", valueName: "FORMAT", help: "\(ImageFormat.namesForHelp). Output is sRGB without metadata; original hands out the source's own bytes when nothing else is asked.", defaultDescription: "-o FILE's extension, else original"),
        .value("quality", short: "q", valueName: "N", help: "Quality 1-100 for lossy formats (\(ImageFormat.registry.filter(\.isLossy).map(\.format.rawValue).joined(separator: ", "))).", defaultDescription: "75"),
        .value("background", valueName: "COLOR", help: "What transparency becomes in formats without alpha (\(ImageFormat.registry.filter { !$0.hasAlpha }.map(\.format.rawValue).joined(separator: ", "))): a name (\(RGBColor.names.map(\.0).joined(separator: ", "))) or hex #RRGGBB.", defaultDescription: "white"),
        .flag("linear", help: "Resize in linear light, as vipsthumbnail --linear: fine light-on-dark detail keeps its brightness; slower."),
        OptionSpec(long: "low-data", valueName: "auto", help: "Low-data mode: the network is constrained; sources with a low-data source load it instead. =auto follows NetworkManager's metered flag. Also IMGFETCH_LOW_DATA=1|auto.", kind: .flagOrValue),
        .value("low-data-source", valueName: "SOURCE", help: "What to load instead of SOURCE in low-data mode."),
        OptionSpec(long: "alt", valueName: "SOURCE", help: "An alternative source, tried in order when the current one fails.", kind: .repeatedValue),
        .value("retry", valueName: "N", help: "Retry timeouts, connection failures, HTTP 408, 429 and 5xx up to N times.", defaultDescription: "0"),
        .value("retry-delay", valueName: "SECONDS", help: "First backoff; doubles each retry, with jitter. Retry-After is honoured.", defaultDescription: "1"),
        .value("retry-max-time", valueName: "SECONDS", help: "Stop retrying after this long."),
        .value("timeout", valueName: "SECONDS", help: "Total time of one request, from when it is sent.", defaultDescription: "60"),
        .value("connect-timeout", valueName: "SECONDS", help: "Time to connect.", defaultDescription: "10"),
        .value("max-bytes", valueName: "SIZE", help: "Refuse larger downloads (K, M, G suffixes).", defaultDescription: "100M"),
        .value("max-pixels", valueName: "N", help: "Refuse images with more pixels, checked before decoding; an animation kept whole counts every frame.", defaultDescription: "100000000"),
        .value("max-frames", valueName: "N", help: "Refuse an animation (GIF or WebP made into GIF or WebP) with more frames, checked before decoding.", defaultDescription: "1000"),
        .flag("force-refresh", help: "Skip the cache lookup and download again."),
        .flag("cache-only", help: "Never use the network; serve only fresh cache entries (exit 3 otherwise)."),
        .flag("offline", help: "Never use the network; serve cache entries even when expired (exit 3 when not cached)."),
        .value("ttl", valueName: "DURATION", help: "Expiry when the server sends no caching headers (s, m, h, d).", defaultDescription: "7d"),
        .value("cache-size-limit", valueName: "SIZE", help: "Hard limit of the cache directory; least recently used entries go first. Also IMGFETCH_CACHE_SIZE_LIMIT.", defaultDescription: "1G"),
        .flag("no-keep-original", help: "Do not keep a source's original bytes beside its variants."),
        .flag("json", help: "One JSON object per result on stdout (NDJSON)."),
        .flag("quiet", help: "No warnings on stderr (errors still)."),
        .flag("verbose", short: "v", help: "Say what happened (cache state, source, time) on stderr."),
    ]

    static let cacheDir = OptionSpec.value("cache-dir", valueName: "DIR", help: "Cache directory.", defaultDescription: "$IMGFETCH_CACHE_DIR, else $XDG_CACHE_HOME/imgfetch, else ~/.cache/imgfetch", global: true)

    static let get = CommandSpec(
        name: "get", abstract: "Fetch one image, to stdout or -o FILE.",
        usage: "imgfetch get [options] SOURCE",
        options: [.value("output", short: "o", valueName: "FILE", help: "Write the image to FILE (- for stdout). Without it, stdout when stdout is not a terminal.")] + retrieval,
        positionals: [PositionalSpec(name: "SOURCE", help: "An http(s) URL, a file path or file:// URL, or a data:image/...;base64 URL.")],
        discussion: """
        Exit codes: 0 delivered; 1 the source failed; 2 usage error; 3 not cached and the network
        may not be used; 4 the cache directory cannot be used (the image is still written).
        Examples:
          imgfetch get https://example.com/a.jpg -s 320x320 -o thumb.jpg
          imgfetch get --json -o - photo.png -f webp
        """)

    static let prefetch = CommandSpec(
        name: "prefetch", abstract: "Warm the cache from a list of sources (default: stdin).",
        usage: "imgfetch prefetch [options] [LIST | -]",
        options: retrieval + [
            .value("jobs", short: "j", valueName: "N", help: "Transfers at once.", defaultDescription: "8"),
            .value("rate", valueName: "PER_SECOND", help: "At most this many requests per second (token bucket)."),
            .value("per-host", valueName: "N", help: "At most N transfers (and connections) per host."),
            .value("shard", valueName: "K/N", help: "Only the K-th of N deterministic slices of the list (by a hash of the source)."),
            .flag("progress", help: "Show the progress bar even when stderr is not a terminal."),
            .flag("no-progress", help: "Never show the progress bar."),
        ],
        positionals: [PositionalSpec(name: "LIST", help: "A file with one source per line; - or nothing reads stdin.", arity: .optional)],
        discussion: """
        List lines: SOURCE [low-data=SOURCE] [alt=SOURCE]...; blank lines and # comments are ignored.
        A malformed line is reported as LIST:LINE: message and skipped.
        """)

    static let cache = CommandSpec(
        name: "cache", abstract: "Inspect and manage the cache.",
        subcommands: [
            CommandSpec(name: "ls", abstract: "List entries.", options: [
                .flag("json", help: "One JSON object per entry."),
                .value("sort", valueName: "FIELD", help: "Sort by age, size, source or access.", defaultDescription: "age"),
                .value("source", valueName: "TEXT", help: "Only entries whose source contains TEXT."),
            ]),
            CommandSpec(name: "info", abstract: "One entry's metadata (every variant of a source).",
                        options: [.flag("json", help: "One JSON object per entry.")],
                        positionals: [PositionalSpec(name: "SOURCE|KEY", help: "A source or a 64-hex-digit key.")]),
            CommandSpec(name: "rm", abstract: "Remove entries (a source removes all its variants).",
                        positionals: [PositionalSpec(name: "SOURCE|KEY", help: "Sources or keys.", arity: .oneOrMore)]),
            CommandSpec(name: "clear", abstract: "Remove everything."),
            CommandSpec(name: "prune", abstract: "Evict expired and least recently used entries.", options: [
                .flag("expired", help: "Remove expired entries."),
                .value("max-size", valueName: "SIZE", help: "Evict least recently used entries until the cache fits SIZE."),
            ]),
            CommandSpec(name: "verify", abstract: "Check every entry (checksum, decodes); exit 1 when something is wrong.",
                        options: [.flag("repair", help: "Remove bad entries and orphaned files.")]),
            CommandSpec(name: "stats", abstract: "Entries, bytes, originals vs variants, oldest, newest.",
                        options: [.flag("json", help: "As one JSON object.")]),
            CommandSpec(name: "path", abstract: "Print the cache directory."),
        ])

    static let root = CommandSpec(
        name: "imgfetch",
        abstract: "Fetch, downsample and cache images: Kingfisher's and Nuke's pipeline for the shell.",
        usage: "imgfetch COMMAND [options]",
        options: [cacheDir],
        subcommands: [get, prefetch, cache],
        discussion: "See man imgfetch for the cache layout, exit codes and examples.")
}
