import Synchronization

/// A bounded in-process LRU of processed images by key, so repeated keys in one process
/// (a prefetch list with repeats, a get that writes two outputs) skip the disk. Default 64 MiB.
public final class MemoryCache: Sendable {
    struct Item { var value: CachedImage; var tick: UInt64 }
    struct State { var items: [String: Item] = [:]; var bytes = 0; var tick: UInt64 = 0 }

    public let costLimit: Int
    private let state = Mutex(State())

    public init(costLimit: Int = 64 << 20) { self.costLimit = costLimit }

    public func value(for key: CacheKey) -> CachedImage? {
        state.withLock { s in
            guard var item = s.items[key.rawValue] else { return nil }
            s.tick += 1
            item.tick = s.tick
            s.items[key.rawValue] = item
            return item.value
        }
    }

    public func set(_ value: CachedImage, for key: CacheKey) {
        let cost = value.bytes.count
        guard cost <= costLimit / 4 else { return }
        state.withLock { s in
            s.tick += 1
            if let old = s.items[key.rawValue] { s.bytes -= old.value.bytes.count }
            s.items[key.rawValue] = Item(value: value, tick: s.tick)
            s.bytes += cost
            if s.bytes > costLimit {
                for (k, item) in s.items.sorted(by: { $0.value.tick < $1.value.tick }) where s.bytes > costLimit {
                    s.items[k] = nil
                    s.bytes -= item.value.bytes.count
                }
            }
        }
    }

    public func remove(_ key: CacheKey) { state.withLock { s in if let old = s.items.removeValue(forKey: key.rawValue) { s.bytes -= old.value.bytes.count } } }

    public var count: Int { state.withLock { $0.items.count } }
}
