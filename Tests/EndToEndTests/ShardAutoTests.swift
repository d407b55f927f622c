import Foundation
import XCTest

/// `--shard auto` (Slurm, Cloud Run) and `--shard auto/N` (Kubernetes Indexed Jobs, AWS Batch)
/// give the slice `--shard K/N` gives, from each runner's variables; hostile or missing values
/// are usage errors that name the variables.
final class ShardAutoTests: E2ETestCase {
    private var list: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        list = try writeList((1...24).map { imageURL("tiny.jpg", "v=\($0)") })
    }

    /// The sources a prefetch with `shard` (and `env`) fetched, from its records.
    private func slice(_ shard: String, env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> Set<String> {
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", list.path, "--shard", shard], env: env)
        assertExit(r, 0, file: file, line: line)
        return Set(r.json.filter { $0["summary"] == nil }.compactMap { $0.string("source") })
    }

    func testSlurmArrays() throws {
        let reference = try (1...3).map { try slice("\($0)/3") }
        XCTAssertEqual(reference.map(\.count).reduce(0, +), 24, "the three slices cover the list")
        // --array=0-2, --array=5-7 and --array=10-14:2: the same three slices.
        for (min, step) in [(0, nil), (5, nil), (10, 2)] as [(Int, Int?)] {
            for k in 1...3 {
                let id = min + (k - 1) * (step ?? 1)
                var env = ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "\(min)", "SLURM_ARRAY_TASK_COUNT": "3",
                           "SLURM_ARRAY_TASK_MAX": "\(min + 2 * (step ?? 1))"]
                if let step { env["SLURM_ARRAY_TASK_STEP"] = "\(step)" }
                XCTAssertEqual(try slice("auto", env: env), reference[k - 1], "Slurm task \(id) of min \(min) step \(step ?? 1) is slice \(k)/3")
            }
        }
    }

    func testCloudRun() throws {
        for k in 1...3 {
            XCTAssertEqual(try slice("auto", env: ["CLOUD_RUN_TASK_INDEX": "\(k - 1)", "CLOUD_RUN_TASK_COUNT": "3"]), try slice("\(k)/3"))
        }
    }

    func testKubernetesAndAWSBatchGiveTheIndexOnly() throws {
        for k in 1...4 {
            let reference = try slice("\(k)/4")
            XCTAssertEqual(try slice("auto/4", env: ["JOB_COMPLETION_INDEX": "\(k - 1)"]), reference, "Kubernetes index \(k - 1)")
            XCTAssertEqual(try slice("auto/4", env: ["AWS_BATCH_JOB_ARRAY_INDEX": "\(k - 1)"]), reference, "AWS Batch index \(k - 1)")
        }
    }

    private func refused(_ shard: String, env: [String: String], naming words: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path, "--shard", shard], env: env)
        assertExit(r, 2, file: file, line: line)
        for word in words { XCTAssertTrue(r.stderr.contains(word), "\(shard) \(env): stderr should name \(word):\n\(r.stderr)", file: file, line: line) }
        XCTAssertFalse(r.stderr.contains("\u{1B}"), "an escape from the environment is never printed raw", file: file, line: line)
    }

    func testUsageErrors() throws {
        try refused("auto", env: [:], naming: ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT", "auto/N"])
        try refused("auto/3", env: [:], naming: ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"])
        // An irregular --array (1,5,7): no K from its variables.
        try refused("auto", env: ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_COUNT": "3"],
                    naming: ["Slurm array is not one regular range", "--shard K/N"])
        try refused("auto", env: ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "3"],
                    naming: ["not one regular range"])
        try refused("auto", env: ["SLURM_ARRAY_TASK_ID": "3"], naming: ["SLURM_ARRAY_TASK_MIN is not set"])
        // Hostile values: signs, blanks, escapes, huge numbers, an index beyond the count.
        try refused("auto", env: ["CLOUD_RUN_TASK_INDEX": "-1", "CLOUD_RUN_TASK_COUNT": "3"], naming: ["CLOUD_RUN_TASK_INDEX", "not a whole number"])
        try refused("auto", env: ["CLOUD_RUN_TASK_INDEX": "1\u{1B}[2J", "CLOUD_RUN_TASK_COUNT": "3"], naming: ["CLOUD_RUN_TASK_INDEX", "\\x1B"])
        try refused("auto", env: ["CLOUD_RUN_TASK_INDEX": " 1", "CLOUD_RUN_TASK_COUNT": "3"], naming: ["not a whole number"])
        try refused("auto", env: ["CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "0"], naming: ["CLOUD_RUN_TASK_COUNT", "at least 1"])
        try refused("auto", env: ["CLOUD_RUN_TASK_INDEX": "99999999999999999999", "CLOUD_RUN_TASK_COUNT": "3"], naming: ["not a whole number"])
        try refused("auto", env: ["CLOUD_RUN_TASK_INDEX": "3", "CLOUD_RUN_TASK_COUNT": "3"], naming: ["CLOUD_RUN_TASK_INDEX=3 gives slice 4, beyond the 3 slices"])
        try refused("auto/4", env: ["JOB_COMPLETION_INDEX": "4"], naming: ["JOB_COMPLETION_INDEX=4", "beyond the 4 slices"])
        try refused("auto/0", env: ["JOB_COMPLETION_INDEX": "0"], naming: ["auto/N"])
        try refused("auto/x", env: ["JOB_COMPLETION_INDEX": "0"], naming: ["auto/N"])
        XCTAssertEqual(try server.totalRequests(), 0, "a usage error fetches nothing")
    }

    /// `cache pull` reads the same variables; checked before the remote cache is asked anything.
    func testCachePullTakesAutoToo() throws {
        let r = try imgfetch(["cache", "pull", "--cache-dir", cacheDir.path, "--remote-cache", server.url("/tier/"), "--shard", "auto"])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("SLURM_ARRAY_TASK_ID") && r.stderr.contains("CLOUD_RUN_TASK_INDEX"), r.stderr)
        let beyond = try imgfetch(["cache", "pull", "--cache-dir", cacheDir.path, "--remote-cache", server.url("/tier/"), "--shard", "auto/2"],
                                  env: ["AWS_BATCH_JOB_ARRAY_INDEX": "2"])
        assertExit(beyond, 2)
        XCTAssertTrue(beyond.stderr.contains("AWS_BATCH_JOB_ARRAY_INDEX=2 gives slice 3, beyond the 2 slices"), beyond.stderr)
        XCTAssertEqual(try server.totalRequests(), 0)
    }
}
