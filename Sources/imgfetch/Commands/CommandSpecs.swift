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
    static func retrieval(formatDefault: String) -> [OptionSpec] {
        typealias K = OptionKeys
        return OptionSpec.list(K.size, K.fit, K.format.defaulting(formatDefault), K.quality, K.maxOutputBytes, K.background, K.linear)
            + thumbnail
            + OptionSpec.list(
                K.lowData, K.lowDataSource, K.partialProgressive, K.noPartialProgressive, K.noSaveData, K.alt, K.retry, K.retryDelay,
                K.retryMaxTime, K.hostDownAfter, K.hostDownTTL, K.backoffBase, K.backoffMax, K.timeout, K.connectTimeout, K.maxBytes, K.maxPixels, K.maxFrames,
                K.forceRefresh, K.cacheOnly, K.offline, K.ttl, K.failureTTL, K.retryFailed, K.cacheSizeLimit, K.noKeepOriginal,
                K.json, K.quiet, K.verbose)
            + outputChoice
    }

    static let cacheDir = OptionKeys.cacheDir.spec

    static let get = CommandSpec(
        name: "get", abstract: "Fetch one image, to stdout or -o FILE (several with --output-dir DIR).",
        usage: "imgfetch get [options] SOURCE...",
        options: OptionSpec.list(OptionKeys.output)
            + retrieval(formatDefault: "-o FILE's extension, else original") + network + remoteCache + outputDir + politeness
            + OptionSpec.list(OptionKeys.noProgress.helped(OptionKeys.meterHelp)),
        positionals: [PositionalSpec(name: "SOURCE", help: "An http(s) URL, a file path or file:// URL, or a data:image/...;base64 URL. Several need --output-dir.", arity: .oneOrMore, completion: .file)],
        discussion: """
        With several sources (--output-dir), the exit code is 1 when any failed (3 when every failure was not cached), else 4 after a cache error, else 0.

        Exit codes: 0 delivered; 1 the source failed otherwise; 2 usage error; 3 not cached and the network may not be used; 4 the cache directory cannot be used (the image is still written); 5 an HTTP error; 6 a network failure (dns, refused, timeout, reset, tls, proxy, host_down); 7 not a usable image (undecodable, over a limit, a digest mismatch); 9 skipped by policy (--robots: robots.txt disallows it; --honor-opt-outs: its server opted out), nothing delivered; 129 after SIGHUP, 130 after SIGINT, 143 after SIGTERM.

        Examples:
          imgfetch get https://example.com/a.jpg -s 320x320 -o thumb.jpg
          imgfetch get photo.png -f webp -o photo.webp --json
          imgfetch get https://example.com/a.jpg -s 100 > thumb.jpg
        """)

    static let prefetch = CommandSpec(
        name: "prefetch", abstract: "Warm the cache from a list of sources (default: stdin).",
        usage: "imgfetch prefetch [options] [LIST | -]",
        options: retrieval(formatDefault: "original") + network + remoteCache + outputDir + politeness
            + OptionSpec.list(
                OptionKeys.jobs, OptionKeys.rate, OptionKeys.perHost, OptionKeys.shard, OptionKeys.progress, OptionKeys.noProgress,
                OptionKeys.saveFailed, OptionKeys.stallTimeout)
            + shards + tables,
        positionals: [PositionalSpec(name: "LIST", help: "A file with one source per line, or a table (--input-format); - or nothing reads stdin.", arity: .optional, completion: .file)],
        discussion: """
        List lines: SOURCE [low-data=SOURCE] [alt=SOURCE]... [header=VALUE]... [user-agent=VALUE] [referer=VALUE] [cookie=VALUE] [user=USER:PASSWORD] [name=TEMPLATE]; a value with blanks is double-quoted (header="Referer: https://a.example/"); list lines are redacted in every message; blank lines and # comments are ignored; LF or CRLF line ends and a UTF-8 byte order mark are accepted. Each line starts as soon as it arrives (a pipe is followed line by line). A malformed line (or one over 64 KiB) is reported as LIST:LINE: message and skipped.

        robots.txt is honoured (--no-robots: not); with --shard-dir or --honor-opt-outs, so are the servers' opt-outs (man imgfetch, POLITENESS): a line they skip is no failure.

        Exit codes: 0 every source delivered or skipped by policy; 1 a source failed or a line was malformed; 2 usage error or an unreadable list; 3 every failure was a source not cached while the network may not be used; 4 the cache directory cannot be used; 8 stalled (--stall-timeout: nothing progressed; the lines not delivered are in --save-remaining); 129 after SIGHUP, 130 after SIGINT, 141 when stdout is closed (| head), 143 after SIGTERM (after the summary).

        Examples:
          imgfetch prefetch urls.txt -s 320x320 -j 8 --rate 50
          grep -v '^#' urls.txt | imgfetch prefetch - -s 320x320 --json
        """)

    /// `cache push` and `cache pull`'s remote cache options.
    static let remoteOptions: [OptionSpec] = [
        OptionKeys.remoteCache.helped("The remote cache: http(s)://HOST/PREFIX/ (GET, HEAD, PUT; pull needs a JSON directory listing) or s3://BUCKET/PREFIX (signed with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION). Also IMGFETCH_REMOTE_CACHE.").spec,
        OptionKeys.s3Endpoint.helped("The S3-compatible endpoint for s3:// (MinIO, Ceph, R2, ...; path-style URLs).").spec,
        OptionKeys.remoteCacert.spec, OptionKeys.remoteInsecure.spec,
    ]

    static let cache = CommandSpec(
        name: "cache", abstract: "Inspect and manage the cache.",
        subcommands: [
            CommandSpec(name: "ls", abstract: "List entries, as they are read: in key order, the first at once, in bounded memory.", options: [
                OptionKeys.json.helped("One JSON object per entry.").spec,
                OptionKeys.sort.spec,
            ] + CacheEntryFilter.options, discussion: """
            The filters combine with AND and are checked as entries are read (the listing still
            streams). Example:
              imgfetch cache ls --originals --larger-than 1M --older-than 30d --json
            """),
            CommandSpec(name: "info", abstract: "One entry's metadata (every variant of a source).",
                        options: [OptionKeys.json.helped("One JSON object per entry.").spec],
                        positionals: [PositionalSpec(name: "SOURCE|KEY", help: "A source, or a key: any unique prefix of at least 6 hex digits (as cache ls prints). A file of that name wins; ./NAME forces a path, key:PREFIX a key.")]),
            CommandSpec(name: "rm", abstract: "Remove entries (a source removes all its variants), or every entry the filters match.",
                        options: [OptionKeys.json.helped("One JSON object per entry removed (the cache ls record plus \"removed\": true), then a summary object (\"summary\": true, entries, bytes).").spec]
                            + CacheEntryFilter.options,
                        positionals: [PositionalSpec(name: "SOURCE|KEY", help: "Sources, or keys or unique key prefixes (>= 6 hex digits; key:PREFIX forces a key); - reads them from standard input, one a line (blank lines and # comments skipped). An ambiguous prefix removes nothing (exit 2). With filters, only the matching entries of each; filters alone remove every entry they match.", arity: .zeroOrMore)],
                        discussion: """
                        Example:
                          imgfetch cache rm --variants --format png --smaller-than 1K
                        """),
            CommandSpec(name: "clear", abstract: "Remove every entry (files named as entries only).", options: [
                OptionKeys.json.helped("A summary object (\"summary\": true, entries) on standard output.").spec,
            ]),
            CommandSpec(name: "prune", abstract: "Evict expired and least recently used entries, and broken files.", options: [
                OptionKeys.maxSize.spec,
                OptionKeys.dryRun.spec,
                OptionKeys.json.helped("One JSON object per entry removed (or, with --dry-run, that would be): the cache ls record plus reason (expired, matched, size_limit) and removed; then a summary object (\"summary\": true, dry_run, checked, entries, bytes, broken_files, broken_bytes, criteria).").spec,
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
                        options: [OptionKeys.repair.spec,
                                  OptionKeys.json.helped("One JSON object per problem (key, source, problem, repaired), then a summary object (\"summary\": true, checked, problems, repaired).").spec]),
            CommandSpec(name: "stats", abstract: "Entries, bytes, originals vs variants, the size limit, evictions, oldest, newest.",
                        options: [OptionKeys.json.helped("As one JSON object (evictions and evicted_bytes: totals since the cache was made).").spec,
                                  OptionKeys.cacheSizeLimit.helped("The limit to show, as get and prefetch take it (0 = none). Also IMGFETCH_CACHE_SIZE_LIMIT.").spec]),
            CommandSpec(name: "scan", abstract: "List the eviction candidates (what stores over the size limit delete first), then fit the cache to the limit; get runs it in the background.",
                        options: [OptionKeys.cacheSizeLimit.helped("The limit (0 = none). Also IMGFETCH_CACHE_SIZE_LIMIT.").spec]),
            CommandSpec(name: "path", abstract: "Print the cache directory."),
            CommandSpec(name: "gallery", abstract: "Write a static HTML gallery of the variants (filter and sort in the page; works from file://).", options: [
                OptionKeys.galleryOutput.spec,
                OptionKeys.copy.spec,
                OptionKeys.pageSize.spec,
                OptionKeys.originals.helped("Also show sources' originals (full-size; kept beside their variants, or asked for as they are).").spec,
            ], discussion: """
            Prints the path of index.html (open it in a browser). Every variant is shown as a picture
            with its source, variant, size, age and expiry. Example:
              imgfetch cache gallery -o gallery --copy
            """),
            CommandSpec(name: "sheet", abstract: "Write a contact sheet: one picture of the newest variants, each labelled.", options: [
                OptionKeys.sheetOutput.spec,
                OptionKeys.columns.spec,
                OptionKeys.sheetSize.spec,
                OptionKeys.limit.spec,
                OptionKeys.originals.helped("Also put sources' originals on the sheet (kept beside their variants, or asked for as they are).").spec,
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
                            OptionKeys.shard.helped("Only the K-th of N deterministic slices of the remote entries (by key); auto and auto/N as prefetch's.").spec,
                            OptionKeys.maxBytes.helped("Refuse larger entries, as get refuses larger downloads (K, M, G suffixes).").spec,
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

    /// The tree a command line is parsed with: for `get ...` and `prefetch ...` the root with that one
    /// command, so a run builds no other command's specs (a cache hit's largest part: `cache` and
    /// `prefetch` cost a `get` ~0.3 M instructions); any other line, the whole tree.
    static func parser(for arguments: [String]) -> CommandSpec {
        let one: CommandSpec
        switch arguments.first {
        case "get": one = get
        case "prefetch": one = prefetch
        default: return root
        }
        return CommandSpec(name: "imgfetch", abstract: "", usage: "imgfetch COMMAND [options]", options: [cacheDir], subcommands: [one])
    }

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
