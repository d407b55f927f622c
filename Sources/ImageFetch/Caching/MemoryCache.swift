
/// A bounded in-process LRU of processed images by key, so repeated keys in one process
/// (a prefetch list with repeats, a get that writes two outputs) skip the disk. Default 64 MiB.
///
/// Exact LRU at O(1) amortised per operation: every use appends `(key, tick)` to a queue, and
/// eviction pops the queue from its head, skipping entries a later use made stale. (Sorting every
/// item on each insert once the cache was full made a long prefetch fall to ~10 images/s.)
public final class MemoryCache: Sendable {
    struct Item { var value: CachedImage; var tick: UInt64 }
    struct State {
        var items: [String: Item] = [:]
        var bytes = 0
        var tick: UInt64 = 0
        /// Uses in order: the oldest at `head`. An entry is current when its tick is its item's.
        var order: [(key: String, tick: UInt64)] = []
        var head = 0

        /// A new tick for `key`, queued; the caller stores it in the item, then compacts.
        mutating func use(_ key: String) -> UInt64 {
            tick += 1
            order.append((key, tick))
            return tick
        }

        /// Keeps the queue within a constant factor of the items: drops the consumed head, or
        /// rebuilds it from the items when reads have left mostly stale entries. Only called once
        /// every item holds its current tick.
        mutating func compactIfNeeded() {
            let live = order.count - head
            if live > 2 * items.count + 1024 {
                order = items.map { ($0.key, $0.value.tick) }.sorted { $0.tick < $1.tick }
                head = 0
            } else if head > 1024 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }

        mutating func evict(toFit limit: Int) {
            while bytes > limit && head < order.count {
                let (key, tick) = order[head]
                head += 1
                guard let item = items[key], item.tick == tick else { continue }   // used again later
                items[key] = nil
                bytes -= item.value.bytes.count
            }
        }
    }

    public let costLimit: Int
    private let state = Lock(State())

    public init(costLimit: Int = 64 << 20) { self.costLimit = costLimit }

    public func value(for key: CacheKey) -> CachedImage? {
        state.withLock { s in
            guard var item = s.items[key.rawValue] else { return nil }
            item.tick = s.use(key.rawValue)
            s.items[key.rawValue] = item
            s.compactIfNeeded()
            return item.value
        }
    }

    public func set(_ value: CachedImage, for key: CacheKey) {
        let cost = value.bytes.count
        guard cost <= costLimit / 4 else { return }
        state.withLock { s in
            if let old = s.items[key.rawValue] { s.bytes -= old.value.bytes.count }
            s.items[key.rawValue] = Item(value: value, tick: s.use(key.rawValue))
            s.bytes += cost
            if s.bytes > costLimit { s.evict(toFit: costLimit) }
            s.compactIfNeeded()
        }
    }

    public func remove(_ key: CacheKey) { state.withLock { s in if let old = s.items.removeValue(forKey: key.rawValue) { s.bytes -= old.value.bytes.count } } }

    public var count: Int { state.withLock { $0.items.count } }
}
