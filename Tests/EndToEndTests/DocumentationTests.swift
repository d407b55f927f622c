import Foundation
import XCTest

/// Every example in the docs runs (as Nuke's DocumentationTests compile its snippets): each line
/// that starts with `imgfetch ` in the examples of every `--help`, the shell blocks of README.md and
/// CONTRIBUTING.md and the man page's EXAMPLES runs against the binary, with the test server in place
/// of example.com and the files it names provided; other shell lines pass `bash -n`; YAML blocks
/// parse; the two guides' relative links and anchors resolve.
final class DocumentationTests: E2ETestCase {
    struct Snippet: CustomStringConvertible {
        var origin: String
        var lines: [String]
        var description: String { "\(origin):\n" + lines.joined(separator: "\n") }
    }

    var repository: URL { E2EPaths.testsDir.deletingLastPathComponent() }

    // MARK: - the tests

    func testHelpExamplesRun() throws {
        let snippets = try helpTexts().flatMap { path, text in Self.helpExamples(text, origin: "imgfetch \(path.joined(separator: " ")) --help") }
        XCTAssertGreaterThanOrEqual(snippets.count, 3, "the get, prefetch and completions help have examples")
        try check(snippets)
    }

    func testReadmeShellBlocksRunAndYAMLParses() throws {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let shell = Self.fencedBlocks(readme, languages: ["sh", "bash", "shell"], origin: "README.md")
        XCTAssertGreaterThanOrEqual(shell.count, 3, "README shell blocks")
        try check(shell)
        let yaml = Self.fencedBlocks(readme, languages: ["yaml", "yml"], origin: "README.md")
        XCTAssertFalse(yaml.isEmpty, "the README's Kubernetes Job")
        checkYAML(yaml)
    }

    func testContributingShellBlocksRunAndYAMLParses() throws {
        let guide = try String(contentsOf: repository.appendingPathComponent("CONTRIBUTING.md"), encoding: .utf8)
        let shell = Self.fencedBlocks(guide, languages: ["sh", "bash", "shell"], origin: "CONTRIBUTING.md")
        XCTAssertGreaterThanOrEqual(shell.count, 2, "CONTRIBUTING shell blocks")
        try check(shell)
        checkYAML(Self.fencedBlocks(guide, languages: ["yaml", "yml"], origin: "CONTRIBUTING.md"))
    }

    /// Every relative link of README.md and CONTRIBUTING.md names a file of the repository, and every
    /// `#anchor` a heading of its file (GitHub's slugs). A path in backticks is not a link.
    func testGuidesLinksAndAnchorsResolve() throws {
        let guides = ["README.md", "CONTRIBUTING.md"]
        var anchors: [String: Set<String>] = [:]
        var texts: [String: String] = [:]
        for name in guides {
            let text = try String(contentsOf: repository.appendingPathComponent(name), encoding: .utf8)
            texts[name] = text
            anchors[name] = Self.headingAnchors(text)
        }
        XCTAssertTrue(texts["README.md"]!.contains("](CONTRIBUTING.md)"), "the README links the contributing guide")
        let link = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        for name in guides {
            let text = Self.outsideFences(texts[name]!)
            var checked = 0
            for m in link.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let r = Range(m.range(at: 1), in: text) else { continue }
                let target = String(text[r])
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                checked += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].isEmpty ? name : parts[0]
                XCTAssertTrue(FileManager.default.fileExists(atPath: repository.appendingPathComponent(file).path),
                              "\(name) links \(target): no such file")
                if parts.count == 2 {
                    let known = try anchors[file] ?? Self.headingAnchors(String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8))
                    XCTAssertTrue(known.contains(parts[1]), "\(name) links \(target): no such heading in \(file)")
                }
            }
            XCTAssertGreaterThan(checked, 0, "\(name) has relative links")
        }
    }

    func checkYAML(_ blocks: [Snippet]) {
        for block in blocks {
            let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                      ["python3", "-c", "import sys, yaml; yaml.safe_load(sys.stdin)"],
                                      environment: ProcessInfo.processInfo.environment,
                                      stdin: Data(block.lines.joined(separator: "\n").utf8))
            XCTAssertEqual(r.status, 0, "YAML does not parse (python3-yaml): \(block)\n\(r.stderr)")
        }
    }

    func testManPageExamplesRun() throws {
        let man = try String(contentsOf: repository.appendingPathComponent("man/imgfetch.1"), encoding: .utf8)
        guard let start = man.range(of: "\n.Sh EXAMPLES\n") else { return XCTFail("the man page has EXAMPLES") }
        let section = man[start.upperBound...].prefix { _ in true }
        let end = section.range(of: "\n.Sh ")?.lowerBound ?? section.endIndex
        var snippets: [Snippet] = []
        var current: [String]?
        for line in section[..<end].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(".Bd -literal") { current = [] } else if line == ".Ed" {
                if let lines = current { snippets.append(Snippet(origin: "man/imgfetch.1 EXAMPLES", lines: lines)) }
                current = nil
            } else if current != nil {
                current?.append(line.replacingOccurrences(of: "\\e", with: "\\").replacingOccurrences(of: "\\&", with: ""))
            }
        }
        XCTAssertGreaterThanOrEqual(snippets.count, 5, "man page example blocks")
        try check(snippets)
    }

    /// The man page renders within 80 columns (`MANWIDTH=80 man -l man/imgfetch.1`), and its EXAMPLES
    /// come right after DESCRIPTION, before the reference sections.
    func testManPageRendersWithin80ColumnsWithExamplesFirst() throws {
        let page = repository.appendingPathComponent("man/imgfetch.1")
        let man = try String(contentsOf: page, encoding: .utf8)
        let sections = man.split(separator: "\n").filter { $0.hasPrefix(".Sh ") }.map { String($0.dropFirst(4)) }
        XCTAssertEqual(Array(sections.prefix(4)), ["NAME", "SYNOPSIS", "DESCRIPTION", "EXAMPLES"], "\(sections)")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/man") else {
            throw XCTSkip("man is not installed (scripts/install-deps.sh installs man-db)")
        }
        var env = Imgfetch.baseEnvironment(home: home)
        env["MANWIDTH"] = "80"
        env["LC_ALL"] = "C.UTF-8"
        env["MAN_KEEP_FORMATTING"] = nil
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/man"), ["-l", page.path], environment: env, currentDirectory: work)
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertTrue(r.stderr.isEmpty, "man -l warns:\n\(r.stderr)")
        var lines = 0
        for line in r.stdoutText.split(separator: "\n", omittingEmptySubsequences: false) {
            lines += 1
            // Overstrikes (bold: c\bc, underline: _\bc) are one column; a tab goes to the next stop of 8.
            var column = 0
            for c in line {
                if c == "\u{8}" { column -= 1 } else if c == "\t" { column += 8 - column % 8 } else { column += 1 }
            }
            XCTAssertLessThanOrEqual(column, 80, "man page line \(lines) is \(column) columns at MANWIDTH=80:\n\(line)")
        }
        XCTAssertGreaterThan(lines, 500, "the rendered page")
    }

    /// Every option the parser knows (as `--help` lists them) is in the man page, and every option
    /// the man page names exists.
    func testManPageAndParserKnowTheSameOptions() throws {
        var longs = Set<String>(), shorts = Set<String>()
        let pattern = try NSRegularExpression(pattern: #"^  (?:-([A-Za-z0-9]), |    )--([a-z0-9][a-z0-9-]*)"#)
        for (_, text) in try helpTexts() {
            for line in text.split(separator: "\n").map(String.init) {
                guard let m = pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) else { continue }
                if let r = Range(m.range(at: 1), in: line) { shorts.insert(String(line[r])) }
                if let r = Range(m.range(at: 2), in: line) { longs.insert(String(line[r])) }
            }
        }
        XCTAssertTrue(longs.isSuperset(of: ["size", "cache-dir", "jobs", "sort", "repair", "help", "version"]), "\(longs.sorted())")
        let man = try String(contentsOf: repository.appendingPathComponent("man/imgfetch.1"), encoding: .utf8)
        let manLongs = Set(Self.matches(#"Fl -([a-z0-9][a-z0-9-]*)"#, in: man))
        let manShorts = Set(Self.matches(#"Fl ([A-Za-z0-9])(?![A-Za-z0-9-])"#, in: man))
        XCTAssertEqual(longs.subtracting(manLongs).sorted(), [], "options --help lists that the man page does not name")
        XCTAssertEqual(manLongs.subtracting(longs).sorted(), [], "options the man page names that the parser does not know")
        XCTAssertEqual(shorts.subtracting(manShorts).sorted(), [], "short options missing from the man page")
        XCTAssertEqual(manShorts.subtracting(shorts).sorted(), [], "short options the man page names that the parser does not know")
    }

    /// The man page's SYNOPSIS is the one generated from the command specs (run
    /// scripts/update-man.sh after adding a command or an option to a small command).
    func testManPageSynopsisIsGeneratedFromTheSpecs() throws {
        let man = try String(contentsOf: repository.appendingPathComponent("man/imgfetch.1"), encoding: .utf8)
        guard let start = man.range(of: ".Sh SYNOPSIS\n"), let end = man.range(of: ".Sh DESCRIPTION\n") else {
            return XCTFail("the man page has SYNOPSIS and DESCRIPTION")
        }
        let r = try imgfetch(["--help-man-synopsis"])
        assertExit(r, 0)
        XCTAssertEqual(String(man[start.upperBound..<end.lowerBound]), r.stdoutText,
                       "man/imgfetch.1's SYNOPSIS is out of date: run scripts/update-man.sh")
    }

    // MARK: - running snippets

    /// Runs every command line of `snippets` in one working directory and cache (so a second
    /// example can use what the first cached); checks the other lines with `bash -n`.
    func check(_ snippets: [Snippet]) throws {
        try provideFiles()
        for snippet in snippets {
            let syntax = bash(["-n"], script: snippet.lines.joined(separator: "\n"))
            XCTAssertEqual(syntax.status, 0, "bash -n fails on \(snippet)\n\(syntax.stderr)")
            let commands = Self.joinContinuations(snippet.lines)
            if let first = commands.first, first.hasPrefix("http") || first.hasPrefix("file:") {
                // A prefetch list example: it must be a list prefetch reads without a malformed line.
                let list = file("example-list.txt")
                try (Self.substitute(snippet.lines.joined(separator: "\n"), server: server) + "\n").write(to: list, atomically: true, encoding: .utf8)
                let r = run("imgfetch prefetch \(list.path) -s 64")
                XCTAssertEqual(r.status, 0, "the list example of \(snippet.origin) does not prefetch:\n\(r)")
                continue
            }
            for command in commands where Self.runs(command) {
                let r = run(Self.substitute(command, server: server))
                let allowed: Set<Int32> = command.contains("--offline") || command.contains("--cache-only") ? [0, 3] : [0]
                XCTAssertTrue(allowed.contains(r.status), "example of \(snippet.origin) exits \(r.status):\n\(command)\n\(r)")
                XCTAssertFalse(r.stderr.contains("Try 'imgfetch"), "a usage error in the example of \(snippet.origin):\n\(command)\n\(r)")
                assertShardsHaveLines(command, origin: snippet.origin)
            }
        }
    }

    /// After an example with `--shard-dir DIR`: every shard's records in DIR (`*.ndjson`) hold a line,
    /// and every tar (`*.tar`, `--shard-tar`) a member: the example shows a shard at work, not an
    /// empty one.
    func assertShardsHaveLines(_ command: String, origin: String) {
        let words = command.split(separator: " ").map(String.init)
        guard let at = words.firstIndex(of: "--shard-dir"), at + 1 < words.count else { return }
        let dir = work.appendingPathComponent(words[at + 1])
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        XCTAssertTrue(names.contains { $0.hasSuffix(".ndjson") }, "the example of \(origin) wrote no shard records: \(command)")
        for name in names where name.hasSuffix(".ndjson") {
            let records = (try? Data(contentsOf: dir.appendingPathComponent(name))) ?? Data()
            XCTAssertFalse(records.isEmpty, "\(name) of the example of \(origin) is empty: \(command)")
        }
        for name in names where name.hasSuffix(".tar") {
            let list = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/tar"), ["-tf", dir.appendingPathComponent(name).path],
                                         environment: ["PATH": "/usr/bin:/bin"])
            XCTAssertFalse(list.stdoutText.isEmpty, "\(name) of the example of \(origin) has no member: \(command)\n\(list.stderr)")
        }
    }

    /// A line runs when imgfetch is its command (first word, after a pipe, or in `source <(...)`).
    static func runs(_ command: String) -> Bool {
        command.hasPrefix("imgfetch ") || command.contains("| imgfetch ") || command.hasPrefix("source <(imgfetch ")
    }

    /// The files the examples name, in the working directory; directories redirections write into.
    func provideFiles() throws {
        let fm = FileManager.default
        for (name, fixture) in [("photo.jpg", "photo.jpg"), ("a.jpg", "photo.jpg"), ("photo.png", "alpha.png")] where !fm.fileExists(atPath: file(name).path) {
            try fm.copyItem(at: E2EPaths.fixture(fixture), to: file(name))
        }
        // 40 sources, so that every shard of the examples' --shard K/N (N <= 4) has lines: a shard is
        // chosen by a hash of the source, whose URL names the server's port (with 3 lines, 2/4 was
        // empty in ~4 runs of 10; with 40, one shard of 4 in ~100,000).
        let tiny = (1...37).map { imageURL("tiny.jpg", "v=\($0)") }
        _ = try writeList(["# sample list", imageURL("photo.jpg"), imageURL("portrait.jpg"), "", imageURL("small.webp")] + tiny, name: "urls.txt")
        _ = try writeList(["url,caption", imageURL("photo.jpg") + ",\"a photo, in quotes\"", imageURL("small.webp") + ",small"], name: "images.csv")
        for dir in [".zfunc", ".config/fish/completions"] {
            try fm.createDirectory(at: home.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
    }

    func run(_ command: String) -> RunResult {
        bash(["-c", "set -o pipefail\n" + command], script: nil)
    }

    func bash(_ arguments: [String], script: String?) -> RunResult {
        let bin = root.appendingPathComponent("bin")
        try? FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let link = bin.appendingPathComponent("imgfetch")
        if let binary = E2EPaths.binary, !FileManager.default.fileExists(atPath: link.path) {
            try? FileManager.default.createSymbolicLink(at: link, withDestinationURL: binary)
        }
        var env = Imgfetch.baseEnvironment(home: home)
        env["PATH"] = bin.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["IMGFETCH_CACHE_DIR"] = cacheDir.path
        env["JOB_COMPLETION_INDEX"] = "0"
        env["SLURM_ARRAY_TASK_ID"] = "1"
        env["SLURM_ARRAY_TASK_COUNT"] = "2"
        env["SLURM_ARRAY_TASK_MIN"] = "1"
        return ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), arguments, environment: env,
                                 stdin: script.map { Data($0.utf8) }, currentDirectory: work, timeout: 60)
    }

    // MARK: - extracting snippets

    /// `imgfetch PATH --help` of every command, root first.
    func helpTexts() throws -> [(path: [String], text: String)] {
        var result: [(path: [String], text: String)] = []
        var queue: [[String]] = [[]]
        while !queue.isEmpty, result.count < 50 {
            let path = queue.removeFirst()
            let r = try imgfetch(path + ["--help"])
            XCTAssertEqual(r.status, 0, "\(r)")
            result.append((path, r.stdoutText))
            var inCommands = false
            for line in r.stdoutText.split(separator: "\n", omittingEmptySubsequences: false) {
                if line == "Commands:" { inCommands = true; continue }
                if line.isEmpty { inCommands = false }
                // `  NAME   abstract`; a wrapped abstract's continuation is indented further.
                if inCommands, line.hasPrefix("  "), line.dropFirst(2).first != " ", let name = line.split(separator: " ").first {
                    queue.append(path + [String(name)])
                }
            }
        }
        return result
    }

    /// The indented lines of help paragraphs introduced by a line ending in `:` (`Examples:`).
    static func helpExamples(_ text: String, origin: String) -> [Snippet] {
        let tables: Set<Substring> = ["Options:", "Arguments:", "Commands:", "Global options:"]
        var snippets: [Snippet] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  "), current != nil {
                current?.append(line.trimmingCharacters(in: .whitespaces))
                continue
            }
            if let lines = current, !lines.isEmpty { snippets.append(Snippet(origin: origin, lines: lines)) }
            current = !line.hasPrefix(" ") && line.hasSuffix(":") && !tables.contains(line) ? [] : nil
        }
        if let lines = current, !lines.isEmpty { snippets.append(Snippet(origin: origin, lines: lines)) }
        return snippets
    }

    /// The contents of Markdown fenced blocks in one of `languages`.
    static func fencedBlocks(_ markdown: String, languages: Set<String>, origin: String) -> [Snippet] {
        var snippets: [Snippet] = []
        var inFence = false
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if inFence, let lines = current { snippets.append(Snippet(origin: origin, lines: lines)) }
                let language = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
                current = !inFence && languages.contains(language) ? [] : nil
                inFence.toggle()
                continue
            }
            current?.append(String(line))
        }
        return snippets
    }

    /// The text of `markdown` without its fenced blocks.
    static func outsideFences(_ markdown: String) -> String {
        var inFence = false
        var lines: [Substring] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            if !inFence { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }

    /// GitHub's anchors of the headings of `markdown`: lower case, letters, digits, `-` and `_` kept,
    /// spaces made `-`, the rest dropped; a repeated one gets `-1`, `-2`, ...
    static func headingAnchors(_ markdown: String) -> Set<String> {
        var anchors = Set<String>()
        for line in outsideFences(markdown).split(separator: "\n") where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            var slug = ""
            for c in title.lowercased() {
                if c.isLetter || c.isNumber || c == "-" || c == "_" { slug.append(c) } else if c == " " { slug.append("-") }
            }
            var unique = slug, n = 0
            while anchors.contains(unique) { n += 1; unique = "\(slug)-\(n)" }
            anchors.insert(unique)
        }
        return anchors
    }

    /// Commands with `\` and trailing-`|` continuations joined; blank and comment lines dropped.
    static func joinContinuations(_ lines: [String]) -> [String] {
        var commands: [String] = []
        var pending = ""
        for raw in lines {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if pending.isEmpty && (line.isEmpty || line.hasPrefix("#")) { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
            } else if line.hasSuffix("|") {
                pending += line + " "
            } else {
                commands.append(pending + line)
                pending = ""
            }
        }
        if !pending.isEmpty { commands.append(pending) }
        return commands
    }

    /// example.com (and its subdomains, .net, .org) URLs -> a fixture on the test server, each path
    /// its own URL, and a base ending in `/` -> that path of the test server; `/data/urls.txt` -> the
    /// working directory's `urls.txt`.
    static func substitute(_ text: String, server: TestServer) -> String {
        let regex = try! NSRegularExpression(pattern: #"https?://(?:[A-Za-z0-9-]+\.)*example\.(?:com|net|org)/([^\s'"]*)"#)
        var out = ""
        var last = text.startIndex
        for m in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let whole = Range(m.range, in: text), let path = Range(m.range(at: 1), in: text) else { continue }
            out += text[last..<whole.lowerBound]
            if text[path].isEmpty || text[path].hasSuffix("/") {
                // A base such as a remote cache tier's (`http://cache.example.com/imgfetch/`): a path
                // of the test server without a query, where nothing is stored (a tier that misses).
                out += server.url("/\(text[path])")
            } else {
                let name = text[path].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "x"
                out += server.url("/img/photo.jpg?v=\(name)")
            }
            last = whole.upperBound
        }
        out += text[last...]
        return out.replacingOccurrences(of: "/data/urls.txt", with: "urls.txt")
    }

    static func matches(_ pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m in
            Range(m.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
