import XCTest
@testable import ImageFetch

/// Random mutations of valid responses (a seeded generator: a failure reproduces): the parser never
/// traps, and what it accepts keeps its bounds.
extension DirectHTTPResponseTests {
    /// SplitMix64: small, seedable, the same sequence on every platform.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let validResponses: [String] = [
        "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: 10\r\n\r\n0123456789",
        "HTTP/1.0 200 OK\r\nContent-Type: image/webp\r\n\r\nRIFF....WEBPVP8 close-delimited",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nWiki\r\n5\r\npedia\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found",
        "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\nContent-Length: 1234\r\n\r\n",
        "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n",
        "HTTP/1.1 204 No Content\r\n\r\n",
    ]

    /// Bytes a mutation inserts: the ones that steer the parser.
    static let interesting: [UInt8] = Array("\r\n:; \t0123456789aAfFxX-+,".utf8) + [0x00, 0x7F, 0x80, 0xFF]

    static func mutate(_ input: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var b = input
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            let at = b.isEmpty ? 0 : Int.random(in: 0..<b.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where !b.isEmpty: b[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))   // bit flip
            case 1 where !b.isEmpty: b[at] = UInt8.random(in: 0...255, using: &rng)            // byte replaced
            case 2: b.removeLast(Int.random(in: 0...b.count, using: &rng))                      // truncation
            case 3: b.insert(interesting.randomElement(using: &rng)!, at: at)                   // insertion
            case 4 where !b.isEmpty: b.remove(at: at)                                            // deletion
            default:                                                                             // a slice repeated
                let end = min(b.count, at + Int.random(in: 0...40, using: &rng))
                b.insert(contentsOf: b[at..<end], at: end)
            }
        }
        return b
    }

    func testRandomMutationsNeverTrapAndKeepTheBodyBound() {
        var rng = SeededGenerator(state: 0x1F_E7C4)
        var accepted = 0, refused = 0
        let inputs = Self.validResponses.map { Array($0.utf8) }
        for i in 0..<6000 {
            let input = Self.mutate(inputs[i % inputs.count], &rng)
            let max = [4, 10, 64, 1 << 16][i % 4]
            do {
                let r = try DirectHTTPResponse.parse(input, maxBodyBytes: max)
                accepted += 1
                XCTAssertLessThanOrEqual(r.body.count, max, "input \(input)")
                XCTAssertLessThanOrEqual(r.body.count, input.count, "input \(input)")
                XCTAssertTrue((200...599).contains(r.status), "status \(r.status) from \(input)")
                if r.status == 204 || r.status == 304 { XCTAssertEqual(r.body, [], "input \(input)") }
                for (name, value) in r.headers.all {
                    XCTAssertFalse(name.isEmpty, "input \(input)")
                    XCTAssertNotNil(HTTPHeaders.validValue(name), "name \(name.debugDescription) from \(input)")
                    XCTAssertNotNil(HTTPHeaders.validValue(value), "value \(value.debugDescription) from \(input)")
                }
            } catch {
                refused += 1
            }
        }
        // The mutations reach both sides of the parser, else this test would prove nothing.
        XCTAssertGreaterThan(accepted, 300)
        XCTAssertGreaterThan(refused, 300)
    }
}
