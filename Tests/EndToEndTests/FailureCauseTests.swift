import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `error.cause` against real listeners on 127.0.0.1, and `timing` in the records.
final class FailureCauseTests: E2ETestCase {
    private func failure(_ url: String, _ extra: [String] = []) throws -> (cause: String?, record: [String: Any], stderr: String) {
        let r = try get([url, "--json", "-o", file("out.jpg").path] + extra)
        let record = singleRecord(r)
        // get's exit code is the cause's class: 5 http, 6 network, 7 image, 1 other.
        let expected: [String: Int32] = ["http": 5, "network": 6, "image": 7, "other": 1]
        let errorClass = (record["error"] as? [String: Any])?["class"] as? String
        assertExit(r, expected[errorClass ?? ""] ?? -1)
        return ((record["error"] as? [String: Any])?["cause"] as? String, record, r.stderr)
    }

    func testAClosedPortIsRefused() throws {
        let port = try LocalPorts.free()
        let f = try failure("http://127.0.0.1:\(port)/a.jpg")
        XCTAssertEqual(f.cause, "refused")
        XCTAssertEqual(errorCode(f.record), "unreachable", "the code stays")
        XCTAssertTrue(f.stderr.contains("the connection was refused"), f.stderr)
    }

    /// A listener whose accept queue is full (listen(0), filled by connections never accepted):
    /// the kernel drops the SYN, the connect times out.
    func testAFullAcceptQueueIsAConnectTimeout() throws {
        let listener = try LocalPorts.fullListener()
        defer { ([listener.fd] + listener.fillers).forEach { close($0) } }
        let f = try failure("http://127.0.0.1:\(listener.port)/a.jpg", ["--connect-timeout", "1"])
        XCTAssertEqual(f.cause, "connect_timeout", f.stderr)
        XCTAssertEqual(errorCode(f.record), "timeout")
        let timing = try XCTUnwrap(f.record["timing"] as? [String: Double])
        XCTAssertGreaterThan(timing["connect"] ?? 0, 500, "the wait was connecting: \(timing)")
    }

    func testAServerStalledMidBodyIsATimeout() throws {
        let f = try failure(imageURL("photo.jpg", "trickle=5000"), ["--timeout", "1"])
        XCTAssertEqual(f.cause, "timeout", f.stderr)
        XCTAssertTrue(f.stderr.contains("timed out after connecting"), f.stderr)
    }

    func testAConnectionClosedMidBodyIsAReset() throws {
        let f = try failure(imageURL("photo.jpg", "short=100"))
        XCTAssertEqual(f.cause, "reset", f.stderr)
        XCTAssertEqual(errorCode(f.record), "connection")
    }

    func testASelfSignedServerIsTLS() throws {
        let certificates = try TestCertificates(in: root)
        let tls = try TestServer(tls: (certificates.serverCertificate, certificates.serverKey))
        defer { tls.stop() }
        let f = try failure(tls.url("/img/tiny.jpg"))
        XCTAssertEqual(f.cause, "tls", f.stderr)
        XCTAssertTrue(f.stderr.contains("certificate"), "the certificate problem is named: \(f.stderr)")
    }

    func testAnHTTPErrorIsHTTPWithItsStatus() throws {
        let f = try failure(server.url("/status/404"))
        XCTAssertEqual(f.cause, "http")
        XCTAssertEqual((f.record["error"] as? [String: Any])?["status"] as? Int, 404)
    }

    /// A name that does not resolve, inside a network namespace of the test's own (no packet leaves).
    func testAnUnresolvableNameIsDNS() throws {
        guard FileManager.default.fileExists(atPath: "/usr/bin/unshare"), let binary = E2EPaths.binary else {
            throw XCTSkip("no unshare")
        }
        let run = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/unshare"),
                                    [getuid() == 0 ? "-n" : "-rn", binary.path, "get", "--cache-dir", cacheDir.path, "--json",
                                     "http://no-such-host.invalid/a.jpg", "-o", file("a.jpg").path],
                                    environment: Imgfetch.baseEnvironment(home: home), timeout: 60)
        if run.status != 1 && run.stdout.isEmpty { throw XCTSkip("no network namespace here: \(run.stderr.prefix(300))") }
        XCTAssertEqual((singleRecord(run)["error"] as? [String: Any])?["cause"] as? String, "dns", run.stderr)
        XCTAssertTrue(run.stderr.contains("does not resolve"), run.stderr)
    }

    func testARecordsTimingPhasesSumToAtMostItsMilliseconds() throws {
        let r = try get([imageURL("photo.jpg"), "-s", "64", "--json", "-o", file("a.jpg").path, "-v"])
        assertExit(r, 0)
        let record = singleRecord(r)
        let timing = try XCTUnwrap(record["timing"] as? [String: Double])
        XCTAssertEqual(Set(timing.keys), ["dns", "connect", "tls", "ttfb", "transfer", "decode", "encode", "store"])
        XCTAssertGreaterThan((timing["transfer"] ?? 0) + (timing["ttfb"] ?? 0), 0, "\(timing)")
        XCTAssertGreaterThan((timing["decode"] ?? 0) + (timing["encode"] ?? 0), 0, "\(timing)")
        XCTAssertLessThanOrEqual(timing.values.reduce(0, +), try XCTUnwrap(record["ms"] as? Double) + 0.001)
        XCTAssertTrue(r.stderr.contains(": timing ") && r.stderr.contains("ttfb"), "-v prints the phases: \(r.stderr)")
    }

    func testThePrefetchSummaryCountsCausesAndGivesPercentiles() throws {
        let port = try LocalPorts.free()
        let list = try writeList([imageURL("tiny.jpg"), imageURL("grey.jpg"), server.url("/status/404"),
                                  "http://127.0.0.1:\(port)/a.jpg"])
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", list.path])
        assertExit(r, 1)
        let lines = r.stdoutText.split(separator: "\n")
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        XCTAssertEqual(summary["causes"] as? [String: Int], ["http": 1, "refused": 1])
        let timing = try XCTUnwrap(summary["timing"] as? [String: [String: Double]])
        let transfer = try XCTUnwrap(timing["transfer"] ?? timing["ttfb"])
        XCTAssertNotNil(transfer["p50"]); XCTAssertNotNil(transfer["p99"])
        XCTAssertTrue(r.stderr.contains("2 failed (by cause: refused 1, http 1)"), r.stderr)
        let verbose = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-v", "--force-refresh", list.path])
        XCTAssertTrue(verbose.stderr.contains("timing p50/p90/p99 ms:"), verbose.stderr)
    }
}
