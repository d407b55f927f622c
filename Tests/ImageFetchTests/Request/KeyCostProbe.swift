import XCTest
@testable import ImageFetch

final class KeyCostProbe: XCTestCase {
    func testProbe() throws {
        let c = CredentialDigest(secret: [UInt8](repeating: 3, count: 32))
        let t0 = FileSystem.monotonic()
        for i in 0..<10_000 {
            let r = ImageRequest(source: .http("https://example.com/a\(i).jpg"), processing: Processing(width: 64))
            _ = try RequestPlan(r, credentials: c).keys(for: r.source)
        }
        let t1 = FileSystem.monotonic()
        for i in 0..<10_000 { _ = SHA256.hex("imgfetch-v1\nhttps://example.com/a\(i).jpg\nw64-inside-original\nrender 2") }
        let t2 = FileSystem.monotonic()
        print("PROBE " + String(decoding: KeyEncoding.bytes(EntryKey(identity: "https://example.com/a.jpg", image: Processing(width: 64, format: .webp, quality: 70), network: try NetworkOptions().keyPart(credentials: c))), as: UTF8.self))
        var n = NetworkOptions(); n.headers = [.init(name: "X-A", value: "1"), .init(name: "Accept", value: nil)]; n.cookie = "k=v"
        print("PROBE " + String(decoding: KeyEncoding.bytes(EntryKey(identity: "i", kind: .response, network: try n.keyPart(credentials: c))), as: UTF8.self))
        let e = EntryKey(identity: "https://example.com/a.jpg", image: Processing(width: 64), network: nil)
        let t3 = FileSystem.monotonic()
        for _ in 0..<10_000 { _ = KeyEncoding.bytes(e) }
        let t4 = FileSystem.monotonic()
        let b = KeyEncoding.bytes(e)
        for _ in 0..<10_000 { _ = SHA256.hex(b) }
        let t5 = FileSystem.monotonic()
        print("PROBE encode \((t4 - t3) * 100) us, sha of \(b.count) bytes \((t5 - t4) * 100) us")
        print("PROBE plan keys: \((t1 - t0) * 100) us each; old-style one key: \((t2 - t1) * 100) us each")
    }
}
