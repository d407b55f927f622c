import ArgumentKit
import ImageFetch

/// Reading a shard's marker: it marks the shard done only for this run's digest and only while the
/// records (and the tar) beside it are the files it was written for, by their SHA-256. Where the
/// shard's lock is per host or absent (`ShardDirectory+Lock.swift`), two runs of one shard can leave
/// the marker of one beside the files of the other: the checksums keep such a marker from being
/// trusted.
extension ShardDirectory {
    enum Marker: Equatable {
        case none
        case done
        case otherDigest(String)
        /// A marker not to be trusted, why: the shard is run again and the marker replaced.
        case unvouched(String)
    }

    /// The marker's state, read before any work (none with `--redo`).
    func marker() throws(UsageError) -> Marker {
        guard !redo, FileSystem.linkStatus(markerPath) != nil else { return .none }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readRegular(markerPath, maxBytes: Self.markerLimit) } catch {
            throw UsageError("cannot read the shard's marker: \(error.message) (--redo runs the shard again)", commandPath: ["prefetch"])
        }
        guard let found = Self.hexField("digest", inMarker: bytes) else {
            throw UsageError("\(markerPath) is not a shard marker (no digest): remove it or run with --redo", commandPath: ["prefetch"])
        }
        // An older imgfetch's marker: its digest was made otherwise, and nothing ties it to its files.
        guard let records = Self.hexField("records_sha256", inMarker: bytes) else {
            return .unvouched("it holds no checksum of the shard's records (an older imgfetch's marker)")
        }
        guard found == digest else { return .otherDigest(found) }
        guard (try? Self.digest(ofFile: recordsPath)) == records else {
            return .unvouched("the records beside it are not the ones it was written for (their SHA-256 differs)")
        }
        if tar {
            guard let tarSum = Self.hexField("tar_sha256", inMarker: bytes), (try? Self.digest(ofFile: tarPath)) == tarSum else {
                return .unvouched("the tar beside it is not the one it was written for (its SHA-256 differs)")
            }
        }
        return .done
    }

    /// The `"NAME":"<64 hex>"` a marker holds, nil when there is none.
    static func hexField(_ name: String, inMarker bytes: [UInt8]) -> String? {
        let needle = Array("\"\(name)\":\"".utf8)
        guard bytes.count >= needle.count + 64 else { return nil }
        for start in 0...(bytes.count - needle.count - 64) where bytes[start] == needle[0] {
            guard Array(bytes[start..<start + needle.count]) == needle else { continue }
            let value = bytes[(start + needle.count)..<(start + needle.count + 64)]
            guard value.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
            return String(decoding: value, as: UTF8.self)
        }
        return nil
    }
}
