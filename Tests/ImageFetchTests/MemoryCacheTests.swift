import XCTest
@testable import ImageFetch

final class MemoryCacheTests: XCTestCase {
    private func image(_ tag: UInt8, cost: Int) -> CachedImage { Self.image(tag, cost: cost) }
    private func key(_ n: Int) -> CacheKey { Self.key(n) }

    private static func image(_ tag: UInt8, cost: Int) -> CachedImage {
        let entry = CacheEntry(key: "k\(tag)", identity: "id\(tag)", source: "s", variant: "original", format: "png",
                               width: Int(tag), height: 1, bytes: Int64(cost), checksum: "", created: 0, expires: nil)
        return CachedImage(entry: entry, bytes: [UInt8](repeating: tag, count: cost), path: "/p/\(tag)")
    }

    private static func key(_ n: Int) -> CacheKey { CacheKey(source: .http("https://e.com/\(n)"), processing: .original) }

    func testStoresAndReturnsValues() {
        let cache = MemoryCache(costLimit: 1000)
        XCTAssertNil(cache.value(for: key(1)))
        cache.set(image(1, cost: 100), for: key(1))
        XCTAssertEqual(cache.value(for: key(1))?.bytes, [UInt8](repeating: 1, count: 100))
        XCTAssertEqual(cache.value(for: key(1))?.entry.width, 1)
        XCTAssertEqual(cache.count, 1)
        cache.remove(key(1))
        XCTAssertNil(cache.value(for: key(1)))
        XCTAssertEqual(cache.count, 0)
    }

    func testEvictsLeastRecentlyUsedByCost() {
        let cache = MemoryCache(costLimit: 400)
        for n in 1...4 { cache.set(image(UInt8(n), cost: 100), for: key(n)) }
        XCTAssertEqual(cache.count, 4, "exactly at the limit: nothing evicted")
        cache.set(image(5, cost: 100), for: key(5))
        XCTAssertEqual(cache.count, 4)
        XCTAssertNil(cache.value(for: key(1)), "the oldest goes first")
        for n in 2...5 { XCTAssertNotNil(cache.value(for: key(n)), "\(n)") }
    }

    func testRecentlyReadItemsSurvive() {
        let cache = MemoryCache(costLimit: 400)
        for n in 1...4 { cache.set(image(UInt8(n), cost: 100), for: key(n)) }
        XCTAssertNotNil(cache.value(for: key(1)))
        XCTAssertNotNil(cache.value(for: key(2)))
        cache.set(image(5, cost: 100), for: key(5))
        cache.set(image(6, cost: 100), for: key(6))
        XCTAssertNil(cache.value(for: key(3)))
        XCTAssertNil(cache.value(for: key(4)))
        for n in [1, 2, 5, 6] { XCTAssertNotNil(cache.value(for: key(n)), "\(n)") }
    }

    func testLargerItemEvictsSeveral() {
        let cache = MemoryCache(costLimit: 400)
        for n in 1...4 { cache.set(image(UInt8(n), cost: 90), for: key(n)) } // 360
        cache.set(image(9, cost: 100), for: key(9)) // 460 → evict 1 (370)
        XCTAssertNil(cache.value(for: key(1)))
        XCTAssertNotNil(cache.value(for: key(2)))
        XCTAssertNotNil(cache.value(for: key(9)))
        XCTAssertEqual(cache.count, 4)
    }

    func testReplacingAKeyDoesNotDoubleCount() {
        let cache = MemoryCache(costLimit: 400)
        for _ in 0..<10 { cache.set(image(1, cost: 100), for: key(1)) }
        for n in 2...4 { cache.set(image(UInt8(n), cost: 100), for: key(n)) }
        XCTAssertEqual(cache.count, 4, "ten writes of one key cost 100, not 1000")
        XCTAssertNotNil(cache.value(for: key(1)))
        cache.set(image(7, cost: 50), for: key(1))
        XCTAssertEqual(cache.value(for: key(1))?.bytes.first, 7)
    }

    func testItemsOverAQuarterOfTheLimitAreNotKept() {
        let cache = MemoryCache(costLimit: 400)
        cache.set(image(1, cost: 101), for: key(1))
        XCTAssertNil(cache.value(for: key(1)))
        cache.set(image(2, cost: 100), for: key(2))
        XCTAssertNotNil(cache.value(for: key(2)))
    }

    /// Thousands of mixed sets, reads and removals (enough to compact the use queue many times)
    /// leave exactly what a plain least-recently-used list leaves.
    func testLongChurnMatchesAPlainLRU() {
        let cache = MemoryCache(costLimit: 400)   // 100 items of cost 4
        var model: [Int] = []                     // least recently used first
        var seed: UInt64 = 42
        func next(_ n: Int) -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int((seed >> 33) % UInt64(n)) }
        for _ in 0..<20_000 {
            let k = next(300)
            switch next(10) {
            case 0..<5:
                cache.set(image(UInt8(k % 256), cost: 4), for: key(k))
                model.removeAll { $0 == k }
                model.append(k)
                if model.count > 100 { model.removeFirst() }
            case 5..<9:
                let hit = cache.value(for: key(k)) != nil
                XCTAssertEqual(hit, model.contains(k), "read of \(k)")
                if hit { model.removeAll { $0 == k }; model.append(k) }
            default:
                cache.remove(key(k))
                model.removeAll { $0 == k }
            }
        }
        XCTAssertEqual(cache.count, model.count)
        for k in 0..<300 where model.contains(k) { XCTAssertNotNil(cache.value(for: key(k)), "\(k)") }
    }

    func testConcurrentUseStaysWithinLimit() async {
        let cache = MemoryCache(costLimit: 1000)
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<200 {
                        let n = (t * 7 + i) % 40
                        cache.set(Self.image(UInt8(n), cost: 100), for: Self.key(n))
                        if let v = cache.value(for: Self.key((n + 3) % 40)) { XCTAssertEqual(v.bytes.first, UInt8((n + 3) % 40)) }
                    }
                }
            }
        }
        XCTAssertLessThanOrEqual(cache.count, 10)
    }
}
