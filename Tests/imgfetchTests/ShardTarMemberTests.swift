import Foundation
import XCTest
@testable import imgfetch
@testable import ImageFetch

/// `--shard-tar`'s samples: which keys may name a member, and the ustar blocks written for them,
/// read back here field by field (the end-to-end tests read whole tars with tarfile, tar and webdataset).
final class ShardTarMemberTests: XCTestCase {
    func testHostileKeysAreRefusedNeverMadeMemberNames() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tar-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tar = try ShardTar(path: dir.appendingPathComponent("t.tar").path, mtime: 0)
        defer { tar.discard() }
        for bad in ["", "../etc", "a/b", "/abs", "a.b", "..", ".", "ключ", "a b", "a\u{0}b", "x\u{1B}[2J",
                    String(repeating: "k", count: 65)] {
            let refusal = tar.refusal(line: 1, own: bad, size: 10)
            XCTAssertEqual(refusal?.code, "file_error", "\(bad.debugDescription) is refused")
            XCTAssertFalse(refusal?.message.contains("\u{1B}") ?? true, "the message shows no control byte")
        }
        XCTAssertNil(tar.refusal(line: 2, own: String(repeating: "k", count: 64), size: 10), "64 bytes fit")
        XCTAssertNil(tar.refusal(line: 3, own: "Abc_09-z", size: 10))
        let again = tar.refusal(line: 4, own: "Abc_09-z", size: 10)
        XCTAssertTrue(again?.message.contains("line 3") ?? false, "a key names one sample: \(String(describing: again))")
        XCTAssertNil(tar.refusal(line: 5, own: nil, size: 10), "a line number always names one")
        XCTAssertNotNil(tar.refusal(line: 6, own: nil, size: Ustar.maxSize + 1), "beyond 11 octal digits")
        XCTAssertEqual(ShardTar.key(line: 7, own: nil), "000000007")
        XCTAssertEqual(ShardTar.key(line: 7, own: "k7"), "k7")
    }

    func testUstarRefusesNamesThatDoNotFit() {
        XCTAssertNil(Ustar.refusal(name: String(repeating: "n", count: 100), size: 0))
        XCTAssertEqual(Ustar.refusal(name: String(repeating: "n", count: 101), size: 0), .nameTooLong(101))
        for bad in ["", ".", "..", "a/b", "a b", "é"] { XCTAssertEqual(Ustar.refusal(name: bad, size: 0), .badName(bad)) }
        XCTAssertThrowsError(try Ustar.header(name: "a/../b", size: 0, mtime: 0))
        XCTAssertThrowsError(try Ustar.header(name: "a", size: Ustar.maxSize + 1, mtime: 0))
    }

    func testEachSampleIsImageThenRecordInWholeBlocks() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("00001-of-00001.tar").path
        let tar = try ShardTar(path: path, mtime: 1_700_000_000)
        let image = ProcessedImage(bytes: Array(repeating: 0xAB, count: 700), width: 2, height: 1, format: "jpeg")
        tar.append(key: "000000012", image: image, record: #"{"line":12}"#)
        // Larger than what goes out in one write with its headers: written in three pieces.
        let large = ProcessedImage(bytes: (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }, width: 2, height: 1, format: "webp")
        XCTAssertGreaterThan(large.bytes.count, ShardTar.coalescedImageLimit)
        tar.append(key: "000000013", image: large, record: #"{"line":13}"#)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing under the final name before commit")
        XCTAssertNil(tar.commit())
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        // per pair: image header + its blocks, json header + 1 block; then 2 end blocks
        XCTAssertEqual(bytes.count, 512 * (1 + 2 + 1 + 1) + 512 * (1 + 137 + 1 + 1) + 1024)

        func field(_ header: ArraySlice<UInt8>, _ offset: Int, _ width: Int) -> String {
            let start = header.startIndex + offset
            return String(decoding: header[start..<(start + width)].prefix { $0 != 0 }, as: UTF8.self)
        }
        var offset = 0
        for (name, size, data) in [("000000012.jpg", 700, image.bytes), ("000000012.json", 12, Array("{\"line\":12}\n".utf8)),
                                   ("000000013.webp", 70_000, large.bytes), ("000000013.json", 12, Array("{\"line\":13}\n".utf8))] {
            let header = bytes[offset..<(offset + 512)]
            XCTAssertEqual(field(header, 0, 100), name)
            XCTAssertEqual(Int(field(header, 124, 12), radix: 8), size)
            XCTAssertEqual(Int(field(header, 136, 12), radix: 8), 1_700_000_000)
            XCTAssertEqual(field(header, 100, 8), "0000644")
            XCTAssertEqual(header[header.startIndex + 156], UInt8(ascii: "0"), "a regular file")
            XCTAssertEqual(field(header, 257, 6), "ustar")
            XCTAssertEqual(field(header, 263, 2), "00")
            // The checksum: the header's bytes summed with its field counted as spaces.
            var sum = 0
            for (i, b) in header.enumerated() { sum += (148..<156).contains(i) ? 0x20 : Int(b) }
            XCTAssertEqual(Int(field(header, 148, 8).trimmingCharacters(in: .whitespaces), radix: 8), sum)
            XCTAssertEqual(Array(bytes[(offset + 512)..<(offset + 512 + size)]), data)
            let padded = (size + 511) / 512 * 512
            XCTAssertTrue(bytes[(offset + 512 + size)..<(offset + 512 + padded)].allSatisfy { $0 == 0 }, "zeros to the block")
            offset += 512 + padded
        }
        XCTAssertTrue(bytes[offset...].allSatisfy { $0 == 0 } && bytes.count - offset == 1024, "two zero blocks end it")
    }

    func testExtensions() {
        XCTAssertEqual(ShardTar.fileExtension("jpeg"), "jpg")
        XCTAssertEqual(ShardTar.fileExtension("webp"), "webp")
        XCTAssertEqual(ShardTar.fileExtension("heif"), "heif")
        XCTAssertEqual(ShardTar.fileExtension("x/../y"), "img")
        XCTAssertEqual(ShardTar.fileExtension(""), "img")
    }
}
