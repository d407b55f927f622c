import Foundation
import XCTest

/// `imgfetch completions bash|zsh|fish`: each script loads in its shell and completes what the
/// parser accepts.
final class CompletionTests: E2ETestCase {
    func script(_ shell: String) throws -> URL {
        let r = try imgfetch(["completions", shell])
        assertExit(r, 0)
        let url = file("completion.\(shell)")
        try r.stdout.write(to: url)
        return url
    }

    func shell(_ path: String, _ arguments: [String]) throws -> RunResult {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw XCTSkip("\(path) is not installed (scripts/install-deps.sh installs it)")
        }
        var env = Imgfetch.baseEnvironment(home: home)
        env["PATH"] = (E2EPaths.binary?.deletingLastPathComponent().path ?? "") + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        return ProcessRunner.run(URL(fileURLWithPath: path), arguments, environment: env, currentDirectory: work)
    }

    func testEachScriptPassesItsShellsSyntaxCheck() throws {
        for (name, path) in [("bash", "/bin/bash"), ("zsh", "/usr/bin/zsh"), ("fish", "/usr/bin/fish")] {
            let r = try shell(path, ["-n", try script(name).path])
            XCTAssertEqual(r.status, 0, "\(name) -n:\n\(r.stderr)")
        }
    }

    func testAnUnknownShellIsAUsageError() throws {
        assertExit(try imgfetch(["completions", "tcsh"]), 2)
    }

    /// Sources the bash script, sets COMP_WORDS/COMP_CWORD as bash does on TAB, calls the function.
    func bashCompletes(_ words: [String]) throws -> [String] {
        let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let program = """
        source '\(try script("bash").path)'
        COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMPREPLY=()
        _imgfetch
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let r = try shell("/bin/bash", ["-c", program])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdoutText.split(separator: "\n").map(String.init)
    }

    func testBashCompletesCommandsOptionsAndValues() throws {
        XCTAssertEqual(try bashCompletes(["imgfetch", "ca"]), ["cache"])
        XCTAssertEqual(try bashCompletes(["imgfetch", "cache", "l"]), ["ls"])
        XCTAssertEqual(try bashCompletes(["imgfetch", "--cache-dir", "/tmp", "cache", "pr"]), ["prune"])
        XCTAssertEqual(try bashCompletes(["imgfetch", "get", "--fit", ""]), ["inside", "cover"])
        XCTAssertEqual(Set(try bashCompletes(["imgfetch", "get", "-f", ""])), ["jpeg", "png", "webp", "avif", "gif", "auto", "original"])
        XCTAssertEqual(try bashCompletes(["imgfetch", "cache", "ls", "--sort", "si"]), ["size"])
        XCTAssertEqual(Set(try bashCompletes(["imgfetch", "prefetch", "--no-p"])), ["--no-progress", "--no-partial-progressive"])
        XCTAssertEqual(try bashCompletes(["imgfetch", "completions", "z"]), ["zsh"])
        // Files for -o and for a LIST.
        try Data().write(to: file("urls-list.txt"))
        XCTAssertEqual(try bashCompletes(["imgfetch", "prefetch", "-j", "4", "urls-"]), ["urls-list.txt"])
        XCTAssertEqual(try bashCompletes(["imgfetch", "get", "x", "-o", "urls-"]), ["urls-list.txt"])
    }

    /// A file name with glob characters is offered as itself, once: never expanded to the files it matches.
    func testBashOffersFileNamesWithGlobCharactersAsTheyAre() throws {
        let dir = file("dir")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for name in ["*", "q?", "qx", "[ab]", "a", "plain.txt"] {
            try Data().write(to: dir.appendingPathComponent(name))
        }
        let expected = ["dir/*", "dir/q?", "dir/qx", "dir/[ab]", "dir/a", "dir/plain.txt"].sorted()
        XCTAssertEqual(try bashCompletes(["imgfetch", "get", "x", "-o", "dir/"]).sorted(), expected)
        XCTAssertEqual(try bashCompletes(["imgfetch", "prefetch", "dir/"]).sorted(), expected)
        XCTAssertEqual(try bashCompletes(["imgfetch", "get", "x", "--output=dir/*"]), ["dir/*"])
        XCTAssertEqual(try bashCompletes(["imgfetch", "get", "--cache-dir", "dir/"]), [], "no directory under dir/")
    }

    func testFishCompletesCommandsAndValues() throws {
        let source = try script("fish").path
        let r = try shell("/usr/bin/fish", ["-c", "source \(source); complete -C 'imgfetch ca'; complete -C 'imgfetch get --fit '"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let words = r.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        XCTAssertEqual(words, ["cache", "cover", "inside"], r.stdoutText)
    }

    /// fish shows a value's own description, not the option's after every value; the option keeps its.
    func testFishDescribesTheOptionNotEachOfItsValues() throws {
        let source = try script("fish").path
        let r = try shell("/usr/bin/fish", ["-c", "source \(source); complete -C 'imgfetch get -f '; echo ---; complete -C 'imgfetch get --form'"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let parts = r.stdoutText.components(separatedBy: "---\n")
        let values = parts[0].split(separator: "\n")
        XCTAssertEqual(Set(values.map { String($0) }), ["jpeg", "png", "webp", "avif", "gif", "auto", "original"], "values without a description: \(r.stdoutText)")
        XCTAssertTrue(parts.count == 2 && parts[1].hasPrefix("--format\t"), "the option keeps its description: \(r.stdoutText)")
    }

    func testHelpIsOfferedAsACommand() throws {
        XCTAssertEqual(try bashCompletes(["imgfetch", "he"]), ["help"])
        XCTAssertEqual(try bashCompletes(["imgfetch", "help", "pre"]), ["prefetch"])
        let fish = try shell("/usr/bin/fish", ["-c", "source \(try script("fish").path); complete -C 'imgfetch he'"])
        XCTAssertTrue(fish.stdoutText.hasPrefix("help\t"), fish.stdoutText)
        XCTAssertEqual(try imgfetch(["help", "prefetch"]).status, 0, "what it offers runs")
    }

    func testZshRegistersTheCompletionFunction() throws {
        let source = try script("zsh").path
        let r = try shell("/usr/bin/zsh", ["-c", "autoload -Uz compinit && compinit -u -d \(file("zcompdump").path) && source \(source) && print -r -- ${_comps[imgfetch]}"])
        XCTAssertEqual(r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), "_imgfetch", "\(r.stderr)")
    }

    /// An interactive zsh (zpty) with the script in $fpath completes a TAB as a user would see it.
    func testZshCompletesInAnInteractiveShell() throws {
        let dir = work.appendingPathComponent("zfunc")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: try script("zsh"), to: dir.appendingPathComponent("_imgfetch"))
        func completes(_ line: String, showing pattern: String) throws -> Bool {
            let program = """
            zmodload zsh/zpty
            zpty z zsh -f -i
            zpty -w z 'PS1=""; fpath=(\(dir.path) $fpath); autoload -Uz compinit; compinit -u -d \(file("zdump").path)'
            zpty -w z $'\(line)\\t'
            zpty -r z out '\(pattern)' && print FOUND
            zpty -d z
            """
            let r = try shell("/usr/bin/zsh", ["-f", "-c", program])
            return r.stdoutText.contains("FOUND")
        }
        XCTAssertTrue(try completes("imgfetch ca", showing: "*cache *"))
        XCTAssertTrue(try completes("imgfetch get --fit ", showing: "*cover*"))
        XCTAssertTrue(try completes("imgfetch cache ls --sort ", showing: "*access*"))
    }
}
