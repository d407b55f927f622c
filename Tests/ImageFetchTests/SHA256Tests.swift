import Foundation
import XCTest
@testable import ImageFetch

final class SHA256Tests: XCTestCase {
    func testEmptyInput() {
        XCTAssertEqual(SHA256.hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex([UInt8]()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testABC() {
        XCTAssertEqual(SHA256.hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testTwoBlockMessage448Bits() {
        XCTAssertEqual(SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testOneMillionA() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        XCTAssertEqual(SHA256.hex(bytes), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testOneMillionAFedInOddChunks() {
        var h = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 997)
        var fed = 0
        while fed < 1_000_000 {
            let n = min(chunk.count, 1_000_000 - fed)
            h.update(chunk[0..<n])
            fed += n
        }
        XCTAssertEqual(SHA256.hexString(h.finalize()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths around the padding boundaries (55, 56, 63, 64, 65 bytes) hashed whole and split everywhere.
    func testIncrementalUpdatesEqualOneShot() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 129, 300] {
            let input = Array(message[0..<length])
            let expected = SHA256.hex(input)
            for split in Set([0, 1, 3, length / 2, max(0, length - 1), length]) where split <= length {
                var h = SHA256()
                h.update(input[0..<split])
                h.update(input[split..<length])
                XCTAssertEqual(SHA256.hexString(h.finalize()), expected, "length \(length) split at \(split)")
            }
            // Many tiny updates of irregular sizes (1, 2, 3, 5, 7, ...), starting from a non-zero slice index.
            var h = SHA256()
            var offset = 0
            let sizes = [1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
            var i = 0
            while offset < length {
                let n = min(sizes[i % sizes.count], length - offset)
                h.update(input[offset..<offset + n])
                offset += n
                i += 1
            }
            XCTAssertEqual(SHA256.hexString(h.finalize()), expected, "length \(length) in tiny pieces")
        }
    }

    func testStringAndByteUpdatesAgree() {
        var a = SHA256()
        a.update("hello ")
        a.update(Array("world".utf8))
        XCTAssertEqual(SHA256.hexString(a.finalize()), SHA256.hex("hello world"))
        XCTAssertEqual(SHA256.hex("hello world"), "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9")
    }

    func testDigestIs32BytesAndHexIsLowercase() {
        var h = SHA256()
        h.update("abc")
        XCTAssertEqual(h.finalize().count, 32)
        let hex = SHA256.hex("anything")
        XCTAssertEqual(hex.count, 64)
        XCTAssertTrue(hex.allSatisfy { "0123456789abcdef".contains($0) })
    }

    /// What a user checks a `source_sha256` against: `sha256sum` of the same bytes, for sizes from a
    /// block to a photo's, fed whole and in pieces that do not fall on 64-byte blocks.
    func testDigestsEqualSha256sumOfTheSameFile() throws {
        let directory = NSTemporaryDirectory() + "imgfetch-sha256-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var generator = SystemRandomNumberGenerator()
        for length in [1, 64, 4095, 65_537, 700_001] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let path = directory + "/bytes-\(length)"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let expected = try sha256sum(path)
            XCTAssertEqual(SHA256.hex(bytes), expected, "\(length) bytes whole")
            for piece in [1000, 4096, 65_535] where piece < length {
                var h = SHA256()
                var offset = 0
                while offset < length {
                    let n = min(piece, length - offset)
                    h.update(bytes[offset..<offset + n])
                    offset += n
                }
                XCTAssertEqual(SHA256.hexString(h.finalize()), expected, "\(length) bytes in pieces of \(piece)")
            }
        }
    }

    func testAFinalizedValueStartsOver() {
        var h = SHA256()
        h.update("not this")
        _ = h.finalize()
        h.update("abc")
        XCTAssertEqual(SHA256.hexString(h.finalize()), SHA256.hex("abc"))
    }

    /// The digest `sha256sum` prints for the file at `path`.
    private func sha256sum(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "sha256sum \(path)")
        return String(String(decoding: printed, as: UTF8.self).prefix(64))
    }
}
