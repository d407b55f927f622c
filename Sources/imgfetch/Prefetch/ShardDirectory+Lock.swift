import ArgumentKit
import ImageFetch

/// One run of a shard at a time: an exclusive lock on `DIR/KKKKK-of-NNNNN.lock` (`LockFile`), taken
/// before the marker is read and held until the marker is written. A second run of the shard (a job
/// runner's retry while the first still runs) fails at once, naming the holder's host and pid. It
/// keeps runs apart across hosts only where the filesystem's locks are cluster-wide (NFSv4, NFSv3
/// with lockd, Lustre mounted with `-o flock`); where it refuses locks the run warns and goes on,
/// and the marker's checksums (`ShardDirectory+Marker.swift`) keep a wrong marker from being trusted.
extension ShardDirectory {
    var lockPath: String { directory + "/" + stem + ".lock" }

    /// Creates DIR when missing and takes the shard's lock: nil (after a warning) when the filesystem
    /// refuses locks; a usage error naming the holder when another run holds it.
    func lock() throws(UsageError) -> LockFile? {
        try prepare()
        let attempt: LockFile.Attempt
        do {
            attempt = try LockFile.tryExclusive(lockPath, holder: LockFile.processHolder(started: Formatting.timestamp(FileSystem.now())))
        } catch {
            throw UsageError("cannot lock the shard: \(error.message)", commandPath: ["prefetch"])
        }
        switch attempt {
        case .acquired(let lock):
            return lock
        case .held(let text):
            throw UsageError("shard \(shard.index)/\(shard.count) is being run by another process (\(Self.holderWords(text))), which holds \(lockPath): wait for it to end, or give another --shard-dir", commandPath: ["prefetch"])
        case .unsupported(let failure):
            Console.errorLine("warning: the filesystem of --shard-dir refuses locks (\(failure.message)): another run of shard \(shard.index)/\(shard.count) is not kept out; the marker's checksums still keep a wrong marker from being trusted")
            return nil
        }
    }

    /// `host pid start-time` as words: "pid 12 on host node7, started 2026-...".
    static func holderWords(_ text: String) -> String {
        let parts = text.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3, Int(parts[1]) != nil else {
            return text.isEmpty ? "it has not written who it is" : "it says: \(text)"
        }
        return "pid \(parts[1]) on host \(parts[0]), started \(parts[2])"
    }
}
