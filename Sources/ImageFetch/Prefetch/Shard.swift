/// The K-th of N deterministic slices of a list (`--shard K/N`), by a hash of each source's identity,
/// so N machines or job-runner tasks split one list with no overlap and no coordination.
public struct Shard: Sendable, Equatable {
    /// 1-based slice index, 1...count.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    public func contains(_ source: Source) -> Bool {
        if count == 1 { return true }
        return Int(Shard.hash(source.exactIdentity) % UInt64(count)) == index - 1
    }

    /// The first 8 bytes of SHA-256(identity): the same on every machine and every run.
    static func hash(_ identity: String) -> UInt64 {
        var h = SHA256()
        h.update(identity)
        return h.finalize().prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
