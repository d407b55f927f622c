import ArgumentKit
import ImageFetch

/// The command tree: every command, option and help text. `--help`, the completion scripts and the
/// man page's option lists (checked by a test) follow it.
enum Specs {
    /// `-f` values: every output format, `original` last.
    static let formats = ImageFormat.allCases.filter { $0 != .original }.map(\.rawValue) + [ImageFormat.original.rawValue]

    /// `--low-data=VALUE` values.
    static let lowDataValues = ["1", "0", "auto", "true", "false", "yes", "no", "on", "off"]

    /// The options of `get` and `prefetch`; `formatDefault` says what `-f` defaults to in that command.
    static func retrieval(formatDefault: String) -> [OptionSpec] { [
        .value("size", short: "s", valueName: "WxH", help: "Fit the image inside the box (also W or xH), keeping its aspect ratio; never upscale (unless --upscale)."),
        .value("fit", valueName: "inside|cover", help: "cover fills the box (both sides of --size) exactly, cropping the overflow (--crop says where).", defaultDescription: "inside", completion: .choices(["inside", "cover"])),
        .value("format", short: "f", valueName: "FORMAT", help: "\(ImageFormat.namesForHelp). Output is sRGB without metadata (unless --keep-metadata); original hands out the source's own bytes when nothing else is asked.", defaultDescription: formatDefault, completion: .choices(formats)),
        .value("quality", short: "q", valueName: "N", help: "Quality 1-100 for lossy formats (\(ImageFormat.registry.filter(\.isLossy).map(\.format.rawValue).joined(separator: ", "))).", defaultDescription: "75"),
        .value("max-output-bytes", valueName: "SIZE", help: "The highest quality not above -q whose JPEG, WebP or AVIF output fits SIZE bytes (K, M, G suffixes; at most 6 encodes); when even quality 20 does not, the smallest is written, with a warning. Part of the cache key."),
        .value("background", valueName: "COLOR", help: "What transparency becomes in formats without alpha (\(ImageFormat.registry.filter { !$0.hasAlpha }.map(\.format.rawValue).joined(separator: ", "))): a name (\(RGBColor.names.map(\.0).joined(separator: ", "))) or hex #RRGGBB.", defaultDescription: "white"),
        .flag("linear", help: "Resize in linear light, as vipsthumbnail --linear: fine light-on-dark detail keeps its brightness; slower."),
    ] + thumbnail + [
        OptionSpec(long: "low-data", valueName: "auto", help: "Low-data mode: the network is constrained; sources with a low-data source load it instead. =auto follows NetworkManager's metered flag. Also IMGFETCH_LOW_DATA=1|auto.", kind: .flagOrValue, completion: .choices(lowDataValues)),
        .value("low-data-source", valueName: "SOURCE", help: "What to load instead of SOURCE in low-data mode.", completion: .file),
        .flag("partial-progressive", help: "Read a progressive JPEG only as far as the thumbnail (-s) needs, in any mode (the default in low-data mode): the download stops after the first scans that serve it; the result is an entry of its own (\"partial\": true)."),
        .flag("no-partial-progressive", help: "Always read progressive JPEGs whole, also in low-data mode."),
        .flag("no-save-data", help: "In low-data mode, do not send Save-Data: on (the client hint servers answer with lighter images) to origins."),
        OptionSpec(long: "alt", valueName: "SOURCE", help: "An alternative source, tried in order when the current one fails.", kind: .repeatedValue, completion: .file),
        .value("retry", valueName: "N", help: "Retry timeouts, connection failures, HTTP 408, 429 and 5xx up to N times.", defaultDescription: "0"),
        .value("retry-delay", valueName: "SECONDS", help: "First backoff; doubles each retry, with jitter. A Retry-After replaces the backoff but never waits less than SECONDS (Retry-After: 0 included).", defaultDescription: "1"),
        .value("retry-max-time", valueName: "SECONDS", help: "Make no retry whose wait would end later than this after the first attempt; a longer Retry-After fails at once, naming its wait.", defaultDescription: "300"),
        .value("host-down-after", valueName: "N", help: "After N connect-level failures in a row (dns, refused, connect_timeout) of one origin (scheme, host, port) with no success between, fail every later request to it at once (code host_down, not retried); 0 turns it off.", defaultDescription: "4"),
        .value("host-down-ttl", valueName: "DURATION", help: "How long a host marked down stays so, in the cache directory, for every process using it (s, m, h, d); a success or --force-refresh clears it; cache stats lists them.", defaultDescription: "10m"),
        .value("timeout", valueName: "SECONDS", help: "Total time of one request, from when it is sent.", defaultDescription: "60"),
        .value("connect-timeout", valueName: "SECONDS", help: "Time to connect.", defaultDescription: "10"),
        .value("max-bytes", valueName: "SIZE", help: "Refuse larger downloads (K, M, G suffixes).", defaultDescription: "100M"),
        .value("max-pixels", valueName: "N", help: "Refuse images with more pixels, checked before decoding; an animation kept whole counts every frame.", defaultDescription: "100000000"),
        .value("max-frames", valueName: "N", help: "Refuse an animation (GIF or WebP made into GIF or WebP) with more frames, checked before decoding.", defaultDescription: "1000"),
        .flag("force-refresh", help: "Skip the cache lookup and download again."),
        .flag("cache-only", help: "Never use the network; serve only fresh cache entries (exit 3 otherwise)."),
        .flag("offline", help: "Never use the network; serve cache entries even when expired, also those that required revalidation (with a warning; exit 3 when not cached). Also with --cache-only: the low-data entry when the full one is not cached."),
        .value("ttl", valueName: "DURATION", help: "Heuristic lifetime: freshness of a 200 (or other heuristically cacheable status) without max-age or Expires (s, m, h, d).", defaultDescription: "7d"),
        .value("failure-ttl", valueName: "DURATION", help: "How long a 404 or 410 without max-age, Expires or Last-Modified is remembered: a rerun fails it without a request (0: not remembered; s, m, h, d).", defaultDescription: "1d"),
        .flag("retry-failed", help: "Ask the server again for what a remembered failure (a stored 404, 410, ...) answers."),
        .value("cache-size-limit", valueName: "SIZE", help: "Hard limit of the cache directory; least recently used entries go first. Also IMGFETCH_CACHE_SIZE_LIMIT.", defaultDescription: "1G"),
        .flag("no-keep-original", help: "Do not keep a source's original bytes beside its variants."),
        .flag("json", help: "One JSON object per result on stdout (NDJSON)."),
        .flag("quiet", help: "No warnings on stderr (errors still)."),
        .flag("verbose", short: "v", help: "One line per result on stderr: cache state, size, format, time, the source loaded."),
    ] + outputChoice }

    /// How http(s) requests are made (get and prefetch): see NetworkSettings.swift and man imgfetch (NETWORK).
    static let network: [OptionSpec] = [
        OptionSpec(long: "header", short: "H", valueName: "'NAME: VALUE'", help: "Send this request header (repeatable). 'NAME:' with no value removes a header sent by default (User-Agent, Accept). Part of the cache key; Authorization and Cookie only as a keyed digest, never stored or shown. Not sent to another host after a redirect (unless --location-trusted).", kind: .repeatedValue),
        .value("user-agent", short: "A", valueName: "TEXT", help: "The User-Agent header. Part of the cache key.", defaultDescription: "imgfetch/VERSION"),
        .value("referer", short: "e", valueName: "URL", help: "The Referer header (image hosts that refuse hotlinks want one). Part of the cache key."),
        .value("user", short: "u", valueName: "USER:PASSWORD", help: "Basic authentication. Nothing is prompted: a missing password is an error. Never sent to another host after a redirect (unless --location-trusted); keyed by digest, never stored or shown; blanked in the process's command line once read (--netrc-file keeps it off the command line)."),
        .flag("location-trusted", help: "As curl's: also send the login (-u, --netrc, -b, every -H header: Authorization, Cookie, X-Api-Key, any other) to every other host a redirect reaches. Dangerous: any host the first one redirects to (or a redirect planted there) gets your password. Part of the cache key."),
        .flag("netrc", help: "Take the host's login and password from ~/.netrc (required)."),
        .value("netrc-file", valueName: "FILE", help: "As --netrc, from FILE.", completion: .file),
        .value("cookie", short: "b", valueName: "'NAME=VALUE[; ...]'|FILE", help: "Send these cookies (sent, never stored; keyed by digest; never sent to another host after a redirect). A value without = is a Netscape cookie file, read at start: its cookies go where their domains say, as curl's, and keep what servers set during the run; each request's key includes a digest of the file's lines for its host. Never stored in the cache; with the cookie engine on (a file, or -c), every request is credentialed: its own keys, and the remote cache gets it only when public.", completion: .file),
        .value("cookie-jar", short: "c", valueName: "FILE", help: "Write every cookie of the run (the cookie file's and those servers set) to FILE at the end, in the Netscape format, mode 0600, atomically. Turns the cookie engine on: every request is credentialed (its own keys; the remote cache only when public).", completion: .file),
        .value("cacert", valueName: "FILE", help: "Trust the CA certificates in FILE (PEM). Precedence as curl's: --cacert, then CURL_CA_BUNDLE, then SSL_CERT_FILE / SSL_CERT_DIR, then the system bundle. For the origin only (the remote cache has --remote-cacert).", completion: .file),
        .value("capath", valueName: "DIR", help: "Trust the CA certificates in DIR (hashed, as c_rehash makes them).", completion: .directory),
        .flag("insecure", short: "k", help: "Do not verify the origin's certificate or name (warns on stderr every time). Never applies to the remote cache (--remote-insecure); what is fetched with it is never uploaded there."),
        .value("proxy", short: "x", valueName: "URL", help: "Use this proxy ([scheme://]host[:port], http or socks). Without it, http_proxy, https_proxy and all_proxy (and no_proxy) are read, as curl does. The remote cache's requests use it too."),
        .value("noproxy", valueName: "HOSTS", help: "Comma-separated hosts (or domains) reached without the proxy; * for all. Overrides no_proxy, for the origin and the remote cache."),
        OptionSpec(long: "resolve", valueName: "HOST:PORT:ADDR", help: "Reach HOST at PORT at ADDR (an IP address; several comma-separated), as curl's --resolve (repeatable). What is fetched with it is never uploaded to the remote cache.", kind: .repeatedValue),
        OptionSpec(long: "deny-address", valueName: "CIDR", help: "Never connect to an address in CIDR (ADDRESS/PREFIX or one address; repeatable): checked on the address connected to, for the source, every redirect, alternatives and low-data sources; not the remote cache. A refusal fails the source with code denied_address. Not with a proxy unless --noproxy '*'.", kind: .repeatedValue),
        .flag("deny-private-addresses", help: "As --deny-address for every address that is not the public Internet: loopback, RFC 1918, link-local (169.254.169.254 too), CGNAT, unique local IPv6, unspecified, and their IPv4-mapped IPv6 forms."),
        .value("limit-rate", valueName: "BYTES_PER_SECOND", help: "Cap each download's speed (K, M, G suffixes): with -j N, the run may take N times it."),
        .value("limit-rate-total", valueName: "BYTES_PER_SECOND", help: "Cap the whole run's download speed: every transfer together, the origin's and the remote cache's (one token bucket; K, M, G suffixes). Holds from the first bytes, where --limit-rate lets a short transfer through at full speed."),
        .value("speed-limit", valueName: "N", help: "Give up on a transfer slower than N bytes/s for --speed-time seconds (a timeout: retried with --retry).", defaultDescription: "1 with --speed-time"),
        .value("speed-time", valueName: "SECONDS", help: "See --speed-limit.", defaultDescription: "30 with --speed-limit"),
        .value("config", valueName: "FILE", help: "Read options from FILE instead of $XDG_CONFIG_HOME/imgfetch/config (~/.config/imgfetch/config): one long option per line, '# comments'. The command line wins.", completion: .file),
        .flag("no-config", help: "Read no config file."),
    ]

    /// Writing images to a directory (get and prefetch): see OutputDirectory.swift.
    static let outputDir: [OptionSpec] = [
        .value("output-dir", valueName: "DIR", help: "Also write each delivered image to DIR, atomically, named by --name. Needed by get with several sources.", completion: .directory),
        .value("name", valueName: "TEMPLATE", help: "File names in --output-dir: {name} (the source's file name without extension), {ext} (the output format's), {key}, {line}, {host}, {path} (the URL's path, decoded, each component made safe: .. and hidden names become _; the last one takes the output format's extension: p087.jpg written as WebP is p087.webp), {dir} (its directory part), {stem} (the last component without its extension), {w}, {h}; may hold / for subdirectories, never .. . A name taken earlier in the run gets -LINE before its extension (list order decides), the same image under the same name is written once; files from before the run are replaced (kept with --no-clobber).", defaultDescription: "{name}.{ext}"),
        .flag("create-dirs", help: "Create --output-dir and the subdirectories --name makes; with get -o, the file's directories (as curl's)."),
        .flag("no-clobber", help: "Keep a file that is already there instead of replacing it (exit 0, as wget -nc; the record adds \"output\": \"kept\"); decided as the file is created, never by a check before."),
    ]

    static let cacheDir = OptionSpec.value("cache-dir", valueName: "DIR", help: "Cache directory.", defaultDescription: "$IMGFETCH_CACHE_DIR, else $XDG_CACHE_HOME/imgfetch, else ~/.cache/imgfetch", global: true, completion: .directory)

    static let get = CommandSpec(
        name: "get", abstract: "Fetch one image, to stdout or -o FILE (several with --output-dir DIR).",
        usage: "imgfetch get [options] SOURCE...",
        options: [.value("output", short: "o", valueName: "FILE", help: "Write the image to FILE (- for stdout). A regular file is replaced atomically, keeping its mode; a device, FIFO or /dev/stdout is written in place; a symlink is written through. Without it, stdout when stdout is not a terminal. One source only.", completion: .file)]
            + retrieval(formatDefault: "-o FILE's extension, else original") + network + remoteCache + outputDir + getFeedback,
        positionals: [PositionalSpec(name: "SOURCE", help: "An http(s) URL, a file path or file:// URL, or a data:image/...;base64 URL. Several need --output-dir.", arity: .oneOrMore, completion: .file)],
        discussion: """
        With several sources (--output-dir), the exit code is 1 when any failed (3 when every failure was not cached), else 4 after a cache error, else 0.

        Exit codes: 0 delivered; 1 the source failed otherwise; 2 usage error; 3 not cached and the network may not be used; 4 the cache directory cannot be used (the image is still written); 5 an HTTP error; 6 a network failure (dns, refused, timeout, reset, tls, proxy, host_down); 7 not a usable image (undecodable, over a limit, a digest mismatch); 129 after SIGHUP, 130 after SIGINT, 143 after SIGTERM.

        Examples:
          imgfetch get https://example.com/a.jpg -s 320x320 -o thumb.jpg
          imgfetch get photo.png -f webp -o photo.webp --json
          imgfetch get https://example.com/a.jpg -s 100 > thumb.jpg
        """)

    static let prefetch = CommandSpec(
        name: "prefetch", abstract: "Warm the cache from a list of sources (default: stdin).",
        usage: "imgfetch prefetch [options] [LIST | -]",
        options: retrieval(formatDefault: "original") + network + remoteCache + outputDir + [
            .value("jobs", short: "j", valueName: "N", help: "Transfers at once.", defaultDescription: "8"),
            .value("rate", valueName: "PER_SECOND", help: "At most this many requests per second (token bucket)."),
            .value("per-host", valueName: "N", help: "At most N transfers (and connections) per host."),
            .value("shard", valueName: "K/N|auto|auto/N", help: "Only the K-th of N deterministic slices of the list (by a hash of the source). auto: K and N from a Slurm array (SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT) or a Cloud Run job (CLOUD_RUN_TASK_INDEX, _COUNT); auto/N: K from JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch)."),
            .flag("progress", help: "Show the progress bar even when stderr is not a terminal."),
            .flag("no-progress", help: "Never show the progress bar."),
            saveFailed,
        ] + shards + tables,
        positionals: [PositionalSpec(name: "LIST", help: "A file with one source per line, or a table (--input-format); - or nothing reads stdin.", arity: .optional, completion: .file)],
        discussion: """
        List lines: SOURCE [low-data=SOURCE] [alt=SOURCE]... [header=VALUE]... [user-agent=VALUE] [referer=VALUE] [cookie=VALUE] [user=USER:PASSWORD] [name=TEMPLATE]; a value with blanks is double-quoted (header="Referer: https://a.example/"); list lines are redacted in every message; blank lines and # comments are ignored; LF or CRLF line ends and a UTF-8 byte order mark are accepted. Each line starts as soon as it arrives (a pipe is followed line by line). A malformed line (or one over 64 KiB) is reported as LIST:LINE: message and skipped.

        Exit codes: 0 every source delivered; 1 a source failed or a line was malformed; 2 usage error or an unreadable list; 3 every failure was a source not cached while the network may not be used; 4 the cache directory cannot be used; 129 after SIGHUP, 130 after SIGINT, 141 when stdout is closed (| head), 143 after SIGTERM (after the summary).

        Examples:
          imgfetch prefetch urls.txt -s 320x320 -j 8 --rate 50
          grep -v '^#' urls.txt | imgfetch prefetch - -s 320x320 --json
        """)

    /// `cache push` and `cache pull`'s remote cache options.
    static let remoteOptions: [OptionSpec] = [
        .value("remote-cache", valueName: "URL", help: "The remote cache: http(s)://HOST/PREFIX/ (GET, HEAD, PUT; pull needs a JSON directory listing) or s3://BUCKET/PREFIX (signed with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION). Also IMGFETCH_REMOTE_CACHE."),
        .value("s3-endpoint", valueName: "URL", help: "The S3-compatible endpoint for s3:// (MinIO, Ceph, R2, ...; path-style URLs).", defaultDescription: "https://s3.REGION.amazonaws.com"),
        remoteCacert, remoteInsecure,
    ]

    static let cache = CommandSpec(
        name: "cache", abstract: "Inspect and manage the cache.",
        subcommands: [
            CommandSpec(name: "ls", abstract: "List entries, as they are read: in key order, the first at once, in bounded memory.", options: [
                .flag("json", help: "One JSON object per entry."),
                .value("sort", valueName: "FIELD", help: "key (streams), or age (newest first), size (largest first), source or access (most recent first): these read every entry before printing the first.", defaultDescription: "key", completion: .choices(CacheListCommand.sortFields)),
            ] + CacheEntryFilter.options, discussion: """
            The filters combine with AND and are checked as entries are read (the listing still
            streams). Example:
              imgfetch cache ls --originals --larger-than 1M --older-than 30d --json
            """),
            CommandSpec(name: "info", abstract: "One entry's metadata (every variant of a source).",
                        options: [.flag("json", help: "One JSON object per entry.")],
                        positionals: [PositionalSpec(name: "SOURCE|KEY", help: "A source, or a key: any unique prefix of at least 6 hex digits (as cache ls prints). A file of that name wins; ./NAME forces a path, key:PREFIX a key.")]),
            CommandSpec(name: "rm", abstract: "Remove entries (a source removes all its variants), or every entry the filters match.",
                        options: [.flag("json", help: "One JSON object per entry removed (the cache ls record plus \"removed\": true), then a summary object (\"summary\": true, entries, bytes).")]
                            + CacheEntryFilter.options,
                        positionals: [PositionalSpec(name: "SOURCE|KEY", help: "Sources, or keys or unique key prefixes (>= 6 hex digits; key:PREFIX forces a key); - reads them from standard input, one a line (blank lines and # comments skipped). An ambiguous prefix removes nothing (exit 2). With filters, only the matching entries of each; filters alone remove every entry they match.", arity: .zeroOrMore)],
                        discussion: """
                        Example:
                          imgfetch cache rm --variants --format png --smaller-than 1K
                        """),
            CommandSpec(name: "clear", abstract: "Remove every entry (files named as entries only).", options: [
                .flag("json", help: "A summary object (\"summary\": true, entries) on standard output."),
            ]),
            CommandSpec(name: "prune", abstract: "Evict expired and least recently used entries, and broken files.", options: [
                .value("max-size", valueName: "SIZE", help: "Evict least recently used entries until the cache fits SIZE."),
                .flag("dry-run", help: "Print what would go (key, size, reason, variant, source), with sizes; remove nothing."),
                .flag("json", help: "One JSON object per entry removed (or, with --dry-run, that would be): the cache ls record plus reason (expired, matched, size_limit) and removed; then a summary object (\"summary\": true, dry_run, checked, entries, bytes, broken_files, broken_bytes, criteria)."),
            ] + CacheEntryFilter.options, discussion: """
            Without filters: the expired entries (none with --max-size alone); with filters, the entries
            they all match (--expired is one). Then, with --max-size, the least recently used entries
            beyond SIZE; always the temporary files interrupted writes left (broken files, over an hour
            old). The last line says what was checked. Examples:
              imgfetch cache prune --dry-run
              imgfetch cache prune --older-than 30d --originals
              imgfetch cache prune --max-size 500M --dry-run --json
            """),
            CommandSpec(name: "verify", abstract: "Check every entry (checksum, decodes); exit 1 when something is wrong.",
                        options: [.flag("repair", help: "Remove bad entries and orphaned files."),
                                  .flag("json", help: "One JSON object per problem (key, source, problem, repaired), then a summary object (\"summary\": true, checked, problems, repaired).")]),
            CommandSpec(name: "stats", abstract: "Entries, bytes, originals vs variants, the size limit, evictions, oldest, newest.",
                        options: [.flag("json", help: "As one JSON object (evictions and evicted_bytes: totals since the cache was made)."),
                                  .value("cache-size-limit", valueName: "SIZE", help: "The limit to show, as get and prefetch take it (0 = none). Also IMGFETCH_CACHE_SIZE_LIMIT.", defaultDescription: "1G")]),
            CommandSpec(name: "scan", abstract: "List the eviction candidates (what stores over the size limit delete first), then fit the cache to the limit; get runs it in the background.",
                        options: [.value("cache-size-limit", valueName: "SIZE", help: "The limit (0 = none). Also IMGFETCH_CACHE_SIZE_LIMIT.", defaultDescription: "1G")]),
            CommandSpec(name: "path", abstract: "Print the cache directory."),
            CommandSpec(name: "gallery", abstract: "Write a static HTML gallery of the variants (filter and sort in the page; works from file://).", options: [
                .value("output", short: "o", valueName: "DIR", help: "Where to write index.html, page-2.html, ... (created).", defaultDescription: "./imgfetch-gallery"),
                .flag("copy", help: "Copy the images into DIR/images instead of linking to the cache's files."),
                .value("page-size", valueName: "N", help: "Entries per page (pages follow key order; filter and sort work within a page).", defaultDescription: "200"),
                .flag("originals", help: "Also show sources' originals (full-size; kept beside their variants, or asked for as they are)."),
            ], discussion: """
            Prints the path of index.html (open it in a browser). Every variant is shown as a picture
            with its source, variant, size, age and expiry. Example:
              imgfetch cache gallery -o gallery --copy
            """),
            CommandSpec(name: "sheet", abstract: "Write a contact sheet: one picture of the newest variants, each labelled.", options: [
                .value("output", short: "o", valueName: "FILE", help: "The sheet (.jpg, .png or .webp). Required.", required: true),
                .value("columns", valueName: "N", help: "Pictures across (at most 100).", defaultDescription: "5"),
                .value("size", valueName: "S", help: "Each picture's box, S x S pixels (at most 1024); never upscaled.", defaultDescription: "160"),
                .value("limit", valueName: "N", help: "At most N entries, newest first (at most 10000).", defaultDescription: "100"),
                .flag("originals", help: "Also put sources' originals on the sheet (kept beside their variants, or asked for as they are)."),
            ], discussion: """
            Each cell is (S + 8) x (S + 26) pixels: the picture centred on white with a label below
            that tells its source from the others on the sheet (the shortest path suffix no other
            ends with; the host too when only the host differs; cut in the middle when too wide),
            by libvips thumbnail, text and arrayjoin. Example:
              imgfetch cache sheet -o sheet.jpg --columns 8 --size 128
            """),
            CommandSpec(name: "push", abstract: "Copy every local entry the remote cache lacks to it (HEAD, then PUT the image and its metadata).",
                        options: remoteOptions),
            CommandSpec(name: "pull", abstract: "Copy every remote cache entry not valid here into the local cache, checked as a remote hit is.",
                        options: remoteOptions + [
                            .value("shard", valueName: "K/N|auto|auto/N", help: "Only the K-th of N deterministic slices of the remote entries (by key); auto and auto/N as prefetch's."),
                            .value("max-bytes", valueName: "SIZE", help: "Refuse larger entries, as get refuses larger downloads (K, M, G suffixes).", defaultDescription: "100M"),
                        ]),
        ],
        discussion: """
        A new cache directory gets a CACHEDIR.TAG. clear, rm, prune and verify --repair refuse (exit 4) \
        a directory without one that holds files imgfetch does not make.
        """)

    static let completions = CommandSpec(
        name: "completions", abstract: "Print a completion script for bash, zsh or fish.",
        positionals: [PositionalSpec(name: "SHELL", help: "bash, zsh or fish.", completion: .choices(CompletionScript.Shell.allCases.map(\.rawValue)))],
        discussion: """
        Load it in the current shell, or install it where the shell looks (make install does):
          source <(imgfetch completions bash)
          imgfetch completions zsh > ~/.zfunc/_imgfetch
          imgfetch completions fish > ~/.config/fish/completions/imgfetch.fish
        """)

    static let root = CommandSpec(
        name: "imgfetch",
        abstract: "Fetch, downsample and cache images: Kingfisher's and Nuke's pipeline for the shell.",
        usage: "imgfetch COMMAND [options]",
        options: [cacheDir],
        subcommands: [get, prefetch, cache, completions],
        discussion: "See man imgfetch for the cache layout, exit codes and examples.")

    /// What the completion scripts offer: the tree plus `help [COMMAND]`, which main.swift runs
    /// before parsing (so it is no spec of the parser's).
    static var completed: CommandSpec {
        var tree = root
        tree.subcommands.append(CommandSpec(name: "help", abstract: "Show the help of a command.", positionals: [
            PositionalSpec(name: "COMMAND", help: "A command.", arity: .zeroOrMore, completion: .choices(root.subcommands.map(\.name))),
        ]))
        return tree
    }
}
