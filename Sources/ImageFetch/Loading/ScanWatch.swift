import CJpeg

/// Watches a body as it arrives and may stop its transfer: called on the transfer thread with each
/// piece, it answers 0 (go on), 1 (stop: what came serves) or 2 (no more pieces needed).
/// `@unchecked Sendable`: `context` is only passed back to `onData`, on the one transfer thread.
public struct BodyWatch: @unchecked Sendable {
    public let context: UnsafeMutableRawPointer
    public let onData: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int32
}

/// Where a progressive JPEG download may stop (`LoadRequest.partialRead`): the thumbnail's box,
/// as the scan watcher of CJpeg (`jpeg_scans.c`) needs it. Part of the download key: a download
/// that may stop is never shared with one that may not.
public struct PartialReadBox: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var cover: Bool
}

/// What a download stopped early kept: the scans that serve, closed with an EOI marker.
public struct PartialRead: Sendable, Equatable {
    /// Bytes that crossed the network before the stop.
    public var downloaded: Int64
    /// The source's whole length as announced (Content-Length), when it was.
    public var sourceBytes: Int64?
}

/// One download's scan watcher: made before the transfer, read after it.
final class ScanWatcher {
    private let watcher: OpaquePointer

    init?(_ box: PartialReadBox) {
        guard let w = ifj_scans_new(Int32(clamping: box.width), Int32(clamping: box.height), box.cover ? 1 : 0) else { return nil }
        watcher = w
    }

    deinit { ifj_scans_free(watcher) }

    var watch: BodyWatch {
        BodyWatch(context: UnsafeMutableRawPointer(watcher), onData: { ctx, data, len in
            guard let ctx, let data else { return 2 }
            return ifj_scans_feed(ctx, data, len)
        })
    }

    /// The body cut at the scan boundary, closed with EOI: what is decoded, whatever else arrived.
    func served(_ body: [UInt8]) -> [UInt8]? {
        let boundary = Int(clamping: ifj_scans_boundary(watcher))
        guard ifj_scans_status(watcher) == Int32(IFJ_SCANS_STOP), boundary > 2, boundary <= body.count else { return nil }
        return Array(body[..<boundary]) + [0xFF, 0xD9]
    }
}
