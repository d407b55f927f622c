import Foundation
import XCTest

/// What each make goal installs (scripts/install-deps.sh's sets, named by the Makefile's `deps`), read
/// from the script's dry run (INSTALL_DEPS_DRY_RUN=1: the packages it wants, installing nothing) for
/// the sets `make -n GOAL` would pass it: `make demo` on a fresh machine installs the build and the
/// demo, none of the test tools.
final class InstallDepsTests: XCTestCase {
    private var root: URL { E2EPaths.testsDir.deletingLastPathComponent() }
    private var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["MAKEFLAGS"] = nil
        env["DEPS"] = nil
        return env
    }

    /// The packages `make GOAL` would have scripts/install-deps.sh install (apt names, `pip: NAME==V`).
    private func wanted(byMake goal: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let make = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/make"), ["-n", "-C", root.path, goal],
                                     environment: environment, timeout: 60)
        XCTAssertEqual(make.status, 0, "make -n \(goal): \(make.stderr)", file: file, line: line)
        let call = try XCTUnwrap(make.stdoutText.split(separator: "\n").first { $0.contains("scripts/install-deps.sh") },
                                 "make \(goal) runs scripts/install-deps.sh:\n\(make.stdoutText)", file: file, line: line)
        let sets = call.split(separator: " ").drop { !$0.hasSuffix("scripts/install-deps.sh") }.dropFirst().map(String.init)
        return try wanted(sets: sets, file: file, line: line)
    }

    private func wanted(sets: [String], env extra: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        var env = environment
        env["INSTALL_DEPS_DRY_RUN"] = "1"
        env.merge(extra) { _, new in new }
        let r = ProcessRunner.run(root.appendingPathComponent("scripts/install-deps.sh"), sets, environment: env, timeout: 60)
        XCTAssertEqual(r.status, 0, "install-deps.sh \(sets): \(r.stderr)", file: file, line: line)
        return r.stdoutText.split(separator: "\n").map(String.init)
    }

    static let testTools = ["chromium", "slurm-wlm", "munge", "lintian", "openjdk-17-jre-headless", "pip: pyspark==4.0.1",
                            "pip: moto[server]==5.2.1", "nginx-light", "tmux"]

    func testMakeDemoInstallsTheBuildAndTheDemoOnly() throws {
        let demo = try wanted(byMake: "demo")
        for tool in Self.testTools { XCTAssertFalse(demo.contains(tool), "make demo installs \(tool): \(demo)") }
        for needed in ["libvips-dev", "libcurl4-openssl-dev", "g++", "python3"] {
            XCTAssertTrue(demo.contains(needed), "make demo needs \(needed): \(demo)")
        }
    }

    func testEachGoalInstallsWhatItNeeds() throws {
        let deb = try wanted(byMake: "deb")
        XCTAssertTrue(deb.contains("lintian") && deb.contains("dpkg-dev"), "make deb: \(deb)")
        XCTAssertFalse(deb.contains("chromium") || deb.contains("slurm-wlm"), "make deb: \(deb)")
        let test = try wanted(byMake: "test")
        for tool in ["chromium", "lintian", "nginx-light", "pip: moto[server]==5.2.1", "pip: webdataset==1.0.2"] {
            XCTAssertTrue(test.contains(tool), "make test needs \(tool): \(test)")
        }
        let engines = try wanted(byMake: "engines-test")
        for tool in ["slurm-wlm", "munge", "parallel", "openjdk-17-jre-headless", "pip: pyspark==4.0.1"] {
            XCTAssertTrue(engines.contains(tool), "make engines-test needs \(tool): \(engines)")
        }
        for goal in ["sanitize", "tsan", "fuzz"] {
            XCTAssertTrue(try wanted(byMake: goal).contains("nginx-light"), "make \(goal) installs the test set")
        }
        // The script alone installs every set, as it did; DEPS=build keeps to the build's.
        let all = try wanted(sets: [])
        XCTAssertTrue(Set(test + engines).isSubset(of: Set(all)), "no argument: every set")
        let build = try wanted(sets: ["demo", "test"], env: ["DEPS": "build"])
        XCTAssertFalse(build.contains("python3") || build.contains("lintian"), "DEPS=build: \(build)")
        XCTAssertTrue(build.contains("libvips-dev"), "DEPS=build: \(build)")
    }
}
