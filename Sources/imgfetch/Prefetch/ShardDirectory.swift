import ArgumentKit
import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// `--shard-dir DIR`: where a shard leaves its records (`KKKKK-of-NNNNN.ndjson`) and, once its
/// last line is done, its marker (`KKKKK-of-NNNNN.stats.json`), each renamed into place whole.
/// The marker carries a digest of the list file and of the options that decide the outputs
/// (`digestedOptions`, the list's reading) and the SHA-256 of the records and tar it vouches for:
/// a rerun with the same digest whose files still match is skipped before anything is looked up;
/// another digest is a usage error (`--redo` runs it again); a marker without checksums (an older
/// imgfetch's) or whose files no longer match is run again (`ShardDirectory+Marker.swift`). The
/// run holds the shard's lock from the marker's check to its write (`ShardDirectory+Lock.swift`).
struct ShardDirectory {
    let directory: String
    let shard: Shard
    let digest: String
    /// `--redo`: the marker is not read.
    let redo: Bool
    /// `--shard-tar`: the shard's ok lines as a webdataset tar too (`ShardTar`).
    var tar = false

    /// `KKKKK-of-NNNNN`: K and N zero-padded to 5 digits, K 1-based.
    var stem: String { Self.padded(shard.index, 5) + "-of-" + Self.padded(shard.count, 5) }
    var recordsPath: String { directory + "/" + stem + ".ndjson" }
    var markerPath: String { directory + "/" + stem + ".stats.json" }
    var tarPath: String { directory + "/" + stem + ".tar" }

    /// The longest marker read (a hostile or foreign file is not read whole).
    static let markerLimit = 1 << 20

    /// `--shard-dir` and `--redo` of `parsed`, checked: nil without `--shard-dir`. `options` are the
    /// output-deciding options in a stable text form (`digestedOptions`).
    static func from(_ parsed: ParsedCommand, shard: Shard?, listPath: String?, options: [String]) throws(UsageError) -> ShardDirectory? {
        let redo = parsed[OptionKeys.redo]
        let tar = parsed[OptionKeys.shardTar]
        guard let directory = parsed[OptionKeys.shardDir] else {
            if redo { throw UsageError("--redo needs --shard-dir DIR (it runs a shard whose marker is there again)", commandPath: ["prefetch"]) }
            if tar { throw UsageError("--shard-tar needs --shard-dir DIR (the tar is written there, beside the shard's records)", commandPath: ["prefetch"]) }
            return nil
        }
        guard !directory.isEmpty else { throw UsageError("--shard-dir needs a directory name", commandPath: ["prefetch"]) }
        guard let shard else {
            throw UsageError("--shard-dir needs --shard K/N (or auto, auto/N): it holds one shard's records and marker", commandPath: ["prefetch"])
        }
        guard let listPath, listPath != "-" else {
            throw UsageError("--shard-dir needs a list file: a list on standard input cannot be digested ahead to mark the shard", commandPath: ["prefetch"])
        }
        let listDigest: String
        do { listDigest = try digest(ofFile: listPath) } catch {
            throw UsageError("cannot read the list \(error.message)", commandPath: ["prefetch"])
        }
        var hash = SHA256()
        hash.update("imgfetch shard 2\n" + listDigest + "\n" + "shard=\(shard.index)/\(shard.count)\n")
        for option in options { hash.update(option + "\n") }
        // The tar is one of the shard's outputs: a marker of a run without it does not mark a run with
        // it done (a line only when on, so the digests of runs without it are those of before).
        if tar { hash.update("shard-tar\n") }
        return ShardDirectory(directory: directory, shard: shard, digest: SHA256.hexString(hash.finalize()), redo: redo, tar: tar)
    }

    /// What decides the outputs of a run of `settings`, one line each: the request's options as the
    /// library digests them (`RequestPlan.shardDigestLines`: the cache key's options, derived from
    /// the key itself, and those outside it that change what a line gives), then the run's own:
    /// low-data mode as decided (`--low-data=auto` asks the network here), `--max-frames`,
    /// `--allow-jxl`, `--no-robots`, `--no-honor-opt-outs`, `--usage`. Never `-j`, `--rate`, `--per-host`, timeouts, retries, progress or verbosity.
    static func digestedOptions(_ settings: RequestOptions) -> [String] {
        var lines = RequestPlan.shardDigestLines(of: settings.request(for: RequestPlan.shardDigestProbe))
        lines.append("low-data=\(settings.networkConditions.isConstrained)")
        lines.append("max-frames=\(settings.maxFrames)")
        if settings.allowJXL { lines.append("allow-jxl") }
        // What is skipped by policy: only when not the default (robots.txt and opt-outs honoured,
        // train-ai), so that the markers of earlier runs keep their digest.
        if !settings.politeness.robots { lines.append("no-robots") }
        if !settings.politeness.optOuts { lines.append("no-honor-opt-outs") }
        if settings.politeness.usage != "train-ai" { lines.append("usage=\(settings.politeness.usage)") }
        return lines
    }

    /// Creates DIR (and its parents) when missing.
    func prepare() throws(UsageError) {
        do { try FileSystem.makeDirectories(directory) } catch {
            throw UsageError("cannot use --shard-dir \(directory): \(error.message)", commandPath: ["prefetch"])
        }
        guard FileSystem.isDirectory(directory) else {
            throw UsageError("--shard-dir \(directory) is not a directory", commandPath: ["prefetch"])
        }
    }

    /// SHA-256 of a file's bytes, read in 1 MiB pieces.
    static func digest(ofFile path: String) throws(FileSystem.Failure) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.Failure(errno: errno, path: path, operation: "open") }
        defer { close(fd) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw FileSystem.Failure(errno: errno, path: path, operation: "read") }
            if n == 0 { break }
            hash.update(buffer[..<n])
        }
        return SHA256.hexString(hash.finalize())
    }

    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
