import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `make deb`: scripts/make-deb.sh makes the package of the binary under test (the release build),
/// once for the class. Its fields and files follow Debian policy, lintian reports no error, and the
/// package works where it lands: installed for real (scripts/install-deb.sh, i.e. `dpkg -i`) in CI
/// (`CI=true`, a throwaway machine) or with `IMGFETCH_DEB_INSTALL=1`, as root, and only when no
/// `imgfetch` package is installed already; else extracted with `dpkg-deb -x` into a temporary
/// directory. Either way `imgfetch --version`, `man -w imgfetch` and the bash completion run from the
/// installed paths; an installed package is then removed with `dpkg -r`, which must leave none of
/// the files `dpkg -L` listed. Nothing else on the machine is touched.
final class PackageTests: E2ETestCase {
    nonisolated(unsafe) private static var built: (dir: URL, deb: URL)?

    override class func tearDown() {
        if let built { try? FileManager.default.removeItem(at: built.dir) }
        built = nil
        super.tearDown()
    }

    var repository: URL { E2EPaths.testsDir.deletingLastPathComponent() }

    /// The files the package must hold, besides its directories.
    static let expectedFiles = [
        "/usr/bin/imgfetch",
        "/usr/share/man/man1/imgfetch.1.gz",
        "/usr/share/bash-completion/completions/imgfetch",
        "/usr/share/zsh/vendor-completions/_imgfetch",
        "/usr/share/fish/vendor_completions.d/imgfetch.fish",
        "/usr/share/doc/imgfetch/copyright",
        "/usr/share/doc/imgfetch/README.md.gz",
        "/usr/share/doc/imgfetch/changelog.Debian.gz",
    ]

    /// The version in Sources/ImageFetch/Version.swift, its one home.
    func sourceVersion() throws -> String {
        let text = try String(contentsOf: repository.appendingPathComponent("Sources/ImageFetch/Version.swift"), encoding: .utf8)
        let regex = try NSRegularExpression(pattern: #"static let string = "([0-9.]+)""#)
        guard let m = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let r = Range(m.range(at: 1), in: text) else { throw XCTSkip("no version in Version.swift") }
        return String(text[r])
    }

    func command(_ path: String, _ arguments: [String], env: [String: String] = [:],
                 currentDirectory: URL? = nil, timeout: TimeInterval = 120) -> RunResult {
        var environment = Imgfetch.baseEnvironment(home: home)
        environment["TMPDIR"] = root.path
        environment["LC_ALL"] = "C.UTF-8"
        environment.merge(env) { $1 }
        var r = ProcessRunner.run(URL(fileURLWithPath: path), arguments, environment: environment,
                                  currentDirectory: currentDirectory ?? work, timeout: timeout)
        r.arguments = [path] + arguments
        return r
    }

    /// The package, made by scripts/make-deb.sh on first use.
    func package() throws -> URL {
        if ProcessInfo.processInfo.environment["ASAN_OPTIONS"] != nil {
            throw XCTSkip("make sanitize runs the sanitized debug binary; the package is made of the release binary, which make test checks")
        }
        if let built = Self.built { return built.deb }
        guard let binary = E2EPaths.binary else { throw Imgfetch.NotBuilt() }
        for tool in ["/usr/bin/dpkg-deb", "/usr/bin/dpkg-shlibdeps", "/usr/bin/strip"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is not installed (scripts/install-deps.sh installs it)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imgfetch-deb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let r = command("/bin/bash", [repository.appendingPathComponent("scripts/make-deb.sh").path, binary.path, dir.path])
        guard r.status == 0 else {
            try? FileManager.default.removeItem(at: dir)
            XCTFail("scripts/make-deb.sh failed:\n\(r)")
            throw XCTSkip("no package")
        }
        let deb = URL(fileURLWithPath: r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
        Self.built = (dir, deb)
        return deb
    }

    // MARK: - the package itself

    func testPackageHasTheFieldsAndFilesPolicyAsks() throws {
        let deb = try package()
        let version = try sourceVersion()
        let arch = command("/usr/bin/dpkg", ["--print-architecture"]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(deb.lastPathComponent, "imgfetch_\(version)-1_\(arch).deb")

        func field(_ name: String) -> String {
            command("/usr/bin/dpkg-deb", ["--field", deb.path, name]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(field("Package"), "imgfetch")
        XCTAssertEqual(field("Version"), "\(version)-1")
        XCTAssertEqual(field("Architecture"), arch)
        XCTAssertEqual(field("Section"), "graphics")
        XCTAssertEqual(field("Priority"), "optional")
        XCTAssertTrue(field("Maintainer").contains("<"), "Maintainer: \(field("Maintainer"))")
        XCTAssertGreaterThan(Int(field("Installed-Size")) ?? 0, 1000, "Installed-Size in KiB")
        let description = field("Description").split(separator: "\n")
        XCTAssertGreaterThan(description.count, 3, "a synopsis and a long description")
        let depends = field("Depends")
        for name in ["libc6 (", "libgcc-s1 (", "libvips42 (>= 8.14)", "libcurl4 (>= 7.80)", "libjpeg62-turbo", "libwebp7", "libpng16-16", "libwebpdemux2", "libgif7"] {
            XCTAssertTrue(depends.contains(name), "Depends names \(name): \(depends)")
        }
        // The C++ runtime is linked in (`make build`): the package needs no libstdc++6.
        XCTAssertFalse(depends.contains("libstdc++"), "Depends: \(depends)")

        // Every entry is owned by root; the files are exactly the expected ones.
        let listing = command("/usr/bin/dpkg-deb", ["--contents", deb.path])
        XCTAssertEqual(listing.status, 0, "\(listing)")
        var files: [String] = []
        for line in listing.stdoutText.split(separator: "\n") {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count >= 6 else { continue }
            XCTAssertEqual(columns[1], "root/root", "owner of \(line)")
            let path = String(columns[5].dropFirst())   // ./usr/... -> /usr/...
            if !columns[0].hasPrefix("d") { files.append(path) }
            if path == "/usr/bin/imgfetch" { XCTAssertEqual(columns[0], "-rwxr-xr-x") } else if !columns[0].hasPrefix("d") {
                XCTAssertEqual(columns[0], "-rw-r--r--", "mode of \(path)")
            }
        }
        XCTAssertEqual(files.sorted(), Self.expectedFiles.sorted())

        // md5sums matches the files; the binary is stripped and has no RUNPATH; gzip -9n.
        let tree = root.appendingPathComponent("tree")
        assertSucceeds(command("/usr/bin/dpkg-deb", ["-x", deb.path, tree.path]))
        assertSucceeds(command("/usr/bin/dpkg-deb", ["-e", deb.path, tree.appendingPathComponent("DEBIAN").path]))
        assertSucceeds(command("/usr/bin/md5sum", ["--check", "--strict", "--quiet", "DEBIAN/md5sums"], currentDirectory: tree))
        let sections = command("/usr/bin/readelf", ["-S", "-d", tree.appendingPathComponent("usr/bin/imgfetch").path]).stdoutText
        XCTAssertFalse(sections.contains(".symtab"), "the binary is stripped")
        XCTAssertFalse(sections.contains(".debug_"), "no debug sections")
        XCTAssertFalse(sections.contains("RUNPATH") || sections.contains("RPATH"), "no RPATH/RUNPATH")
        XCTAssertFalse(sections.contains("libstdc++"), "no NEEDED libstdc++.so.6: the C++ runtime is linked in")
        XCTAssertFalse(sections.contains("libcrypto") || sections.contains("libssl"), "no NEEDED libcrypto: its SHA-256 is linked in")
        for gz in ["usr/share/man/man1/imgfetch.1.gz", "usr/share/doc/imgfetch/changelog.Debian.gz", "usr/share/doc/imgfetch/README.md.gz"] {
            let bytes = [UInt8](try Data(contentsOf: tree.appendingPathComponent(gz)).prefix(10))
            XCTAssertEqual(bytes.count, 10)
            XCTAssertEqual(bytes[3] & 0x08, 0, "\(gz): no file name (gzip -n)")
            XCTAssertEqual(bytes[4..<8].reduce(0, |), 0, "\(gz): no time stamp (gzip -n)")
            XCTAssertEqual(bytes[8], 2, "\(gz): maximum compression (gzip -9)")
        }
        let copyright = try String(contentsOf: tree.appendingPathComponent("usr/share/doc/imgfetch/copyright"), encoding: .utf8)
        XCTAssertTrue(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"), "machine-readable copyright")
        XCTAssertTrue(copyright.contains("\nFiles: *\nCopyright: 2026 imgfetch maintainers\nLicense: Apache-2.0\n"), copyright)
        XCTAssertTrue(copyright.contains("'/usr/share/common-licenses/Apache-2.0'"), "the licence's text on Debian systems")
        XCTAssertTrue(copyright.contains("GCC Runtime\n Library Exception") && copyright.contains("'/usr/share/common-licenses/GPL-3'"), "the statically linked libstdc++ and its licence")
        XCTAssertTrue(copyright.contains("The OpenSSL Project Authors"), "the statically linked SHA-256 of libcrypto and its authors")
        let readme = command("/bin/gzip", ["-dc", tree.appendingPathComponent("usr/share/doc/imgfetch/README.md.gz").path]).stdoutText
        XCTAssertEqual(readme, try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8),
                       "the package's user guide is the README")
        let changelog = command("/bin/gzip", ["-dc", tree.appendingPathComponent("usr/share/doc/imgfetch/changelog.Debian.gz").path]).stdoutText
        XCTAssertTrue(changelog.hasPrefix("imgfetch (\(version)-1) "), changelog)
    }

    func testLintianReportsNoErrors() throws {
        let deb = try package()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/lintian") else {
            throw XCTSkip("lintian is not installed (scripts/install-deps.sh installs it)")
        }
        let r = command("/usr/bin/lintian", ["--allow-root", "--fail-on", "error", deb.path], timeout: 300)
        XCTAssertEqual(r.status, 0, "lintian reports errors:\n\(r)")
        XCTAssertFalse(r.stdoutText.split(separator: "\n").contains { $0.hasPrefix("E: ") }, "\(r)")
        if !r.stdoutText.isEmpty { print("lintian:\n\(r.stdoutText)") }
    }

    // MARK: - installed, or extracted

    func testInstalledPackageRunsAndRemovesCleanly() throws {
        let deb = try package()
        let env = ProcessInfo.processInfo.environment
        let mayInstall = env["CI"] == "true" || env["IMGFETCH_DEB_INSTALL"] == "1"
        guard mayInstall else {
            print("PackageTests: extracting the package (dpkg -i only with CI=true or IMGFETCH_DEB_INSTALL=1)")
            return try checkExtracted(deb)
        }
        guard getuid() == 0 else {
            print("PackageTests: not root, so extracting the package instead of installing it")
            return try checkExtracted(deb)
        }
        let before = command("/usr/bin/dpkg-query", ["--show", "--showformat=${db:Status-Status}", "imgfetch"])
        let state = before.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard before.status != 0 || state.isEmpty || state == "not-installed" else {
            print("PackageTests: a package imgfetch is on this machine already (\(state)): not installing or removing it; extracting instead")
            return try checkExtracted(deb)
        }
        try checkInstalled(deb)
    }

    func checkExtracted(_ deb: URL) throws {
        let tree = root.appendingPathComponent("extracted")
        assertSucceeds(command("/usr/bin/dpkg-deb", ["-x", deb.path, tree.path]))
        try checkRuns(prefix: tree.path, env: ["MANPATH": tree.appendingPathComponent("usr/share/man").path])
    }

    func checkInstalled(_ deb: URL) throws {
        let install = command("/bin/bash", [repository.appendingPathComponent("scripts/install-deb.sh").path, deb.path], timeout: 600)
        var removed = false
        defer {
            // Even when a check failed: the machine is left as it was.
            if !removed { _ = command("/usr/bin/dpkg", ["-r", "imgfetch"], timeout: 300) }
        }
        guard install.status == 0 else { return XCTFail("scripts/install-deb.sh failed:\n\(install)") }
        let status = command("/usr/bin/dpkg-query", ["--show", "--showformat=${Status}", "imgfetch"]).stdoutText
        XCTAssertEqual(status, "install ok installed")

        let listed = command("/usr/bin/dpkg", ["-L", "imgfetch"]).stdoutText.split(separator: "\n").map(String.init)
        for path in Self.expectedFiles { XCTAssertTrue(listed.contains(path), "dpkg -L lists \(path)") }
        var isDirectory: ObjCBool = false
        let files = listed.filter { FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && !isDirectory.boolValue }
        XCTAssertEqual(files.sorted(), Self.expectedFiles.sorted(), "the files dpkg -L lists")

        try checkRuns(prefix: "", env: [:])

        let remove = command("/usr/bin/dpkg", ["-r", "imgfetch"], timeout: 300)
        removed = remove.status == 0
        XCTAssertEqual(remove.status, 0, "dpkg -r imgfetch:\n\(remove)")
        for path in files { XCTAssertFalse(FileManager.default.fileExists(atPath: path), "dpkg -r left \(path)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/usr/share/doc/imgfetch"), "dpkg -r left /usr/share/doc/imgfetch")
        let after = command("/usr/bin/dpkg-query", ["--show", "--showformat=${db:Status-Status}", "imgfetch"])
        XCTAssertTrue(after.status != 0 || ["", "not-installed"].contains(after.stdoutText), "after dpkg -r: \(after)")
    }

    /// `imgfetch --version`, `man -w imgfetch` and the bash completion, from `prefix`/usr/....
    func checkRuns(prefix: String, env: [String: String]) throws {
        let binary = prefix + "/usr/bin/imgfetch"
        let version = command(binary, ["--version"])
        XCTAssertEqual(version.status, 0, "\(version)")
        XCTAssertEqual(version.stdoutText.split(separator: "\n").first.map(String.init), "imgfetch \(try sourceVersion())")

        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/man") else {
            throw XCTSkip("man is not installed (scripts/install-deps.sh installs man-db)")
        }
        let man = command("/usr/bin/man", ["-a", "-w", "imgfetch"], env: env)
        XCTAssertEqual(man.status, 0, "\(man)")
        XCTAssertTrue(man.stdoutText.split(separator: "\n").contains { $0 == prefix + "/usr/share/man/man1/imgfetch.1.gz" }, "man -w imgfetch:\n\(man)")

        let completion = prefix + "/usr/share/bash-completion/completions/imgfetch"
        let program = """
        source '\(completion)'
        COMP_WORDS=(imgfetch cache l); COMP_CWORD=2; COMPREPLY=()
        _imgfetch
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let bash = command("/bin/bash", ["-c", program], env: ["PATH": (prefix.isEmpty ? "" : prefix + "/usr/bin:") + "/usr/bin:/bin"])
        XCTAssertEqual(bash.status, 0, "\(bash)")
        XCTAssertEqual(bash.stdoutText, "ls\n", "the installed bash completion completes `imgfetch cache l`:\n\(bash)")
    }

    func assertSucceeds(_ r: RunResult, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.status, 0, "\(r)", file: file, line: line)
    }
}
