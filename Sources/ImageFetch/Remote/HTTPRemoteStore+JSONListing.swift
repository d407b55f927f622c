// An HTTP store's listing: one JSON directory listing for the whole prefix (nginx's autoindex
// cannot page), read as it arrives through the transfer's tap and scanned a byte at a time, so
// that only the names kept are held, never the listing itself.

import CCurl

extension HTTPRemoteStore {
    /// The most bytes a streamed JSON listing may have: 4 GiB.
    public static let maxStreamedListingBytes: Int64 = 4 << 30
    /// The most cache object names kept from one JSON listing (each entry has two): 4,000,000.
    public static let maxListingNames = 4_000_000

    /// The cache object names of the JSON listing at `base` (empty when there is none: 404).
    func jsonListing(_ base: String) async throws(RemoteStoreError) -> [String] {
        let transport: CurlTransport
        do { transport = try engine.transport() } catch {
            throw RemoteStoreError("remote cache \(description): \(error.message)")
        }
        let scanner = JSONListScanner(maxNames: HTTPRemoteStore.maxListingNames)
        var request = TransferRequest(url: base, headers: ["Accept: application/json"], connectTimeout: connectTimeout,
                                      timeout: timeout, maxBytes: HTTPRemoteStore.maxStreamedListingBytes, maxRedirects: 0)
        request.network.tls = tls
        request.network.proxy = proxy
        request.network.noProxy = noProxy
        request.tap = scanner.tap
        request.tapOnly = true
        let result = await transport.perform(request)
        // The tap points at the scanner without retaining it: alive until here.
        let scanned = withExtendedLifetime(scanner) { scanner.finish() }
        if result.httpStatus == 404 { return [] }   // nothing stored yet
        if scanned.overflow {
            throw RemoteStoreError("remote cache \(description): listing: more than \(HTTPRemoteStore.maxListingNames) names")
        }
        if result.tooLarge || result.curlCode == Int32(IFC_E_FILESIZE_EXCEEDED) {
            guard (200...299).contains(result.httpStatus) else { try check(result, what: "listing"); return [] }
            throw RemoteStoreError("remote cache \(description): listing: larger than \(HTTPRemoteStore.maxStreamedListingBytes) bytes",
                                   status: result.httpStatus)
        }
        guard result.curlCode == 0 else { throw transferError(result, what: "listing") }
        try check(result, what: "listing")
        guard scanned.complete else { throw RemoteStoreError("remote cache \(description): listing: cut short", status: result.httpStatus) }
        return scanned.names
    }
}

/// Finds the values of `"name"` members in a JSON directory listing (nginx's `autoindex_format
/// json`: `[{ "name":"x", "type":"file", ... }]`) fed in pieces of any size, keeping the cache
/// object names. A value with an escape, or longer than any cache object name, is skipped (no
/// cache object name has one). Holds at most one value's bytes besides the names kept.
struct JSONListScanState {
    private static let key = Array("\"name\"".utf8)
    private enum Phase { case key(matched: Int), colon, open, value }
    private var phase = Phase.key(matched: 0)
    private var value: [UInt8] = []
    var names: [String] = []
    let maxNames: Int
    /// More names than `maxNames` were listed (the rest were dropped).
    private(set) var overflow = false

    init(maxNames: Int = .max) { self.maxNames = maxNames }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        for b in bytes { step(b) }
    }

    private mutating func step(_ b: UInt8) {
        let space = b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
        switch phase {
        case .key(let matched):
            if b == Self.key[matched] {
                phase = matched + 1 == Self.key.count ? .colon : .key(matched: matched + 1)
            } else {
                phase = .key(matched: b == Self.key[0] ? 1 : 0)
            }
        case .colon:
            if space { return }
            if b == UInt8(ascii: ":") { phase = .open } else { restart(b) }
        case .open:
            if space { return }
            if b == UInt8(ascii: "\"") {
                value.removeAll(keepingCapacity: true)
                phase = .value
            } else {
                restart(b)
            }
        case .value:
            if b == UInt8(ascii: "\"") {
                if HTTPRemoteStore.isCacheObjectName(value) {
                    if names.count < maxNames { names.append(String(decoding: value, as: UTF8.self)) } else { overflow = true }
                }
                phase = .key(matched: 0)
            } else if b == UInt8(ascii: "\\") || value.count >= 80 {
                restart(b)
            } else {
                value.append(b)
            }
        }
    }

    /// Back to looking for the key, at `b`.
    private mutating func restart(_ b: UInt8) {
        phase = .key(matched: b == Self.key[0] ? 1 : 0)
    }
}

enum JSONListParser {
    /// The cache object names of a whole listing.
    static func names(_ body: [UInt8]) -> [String] {
        var state = JSONListScanState()
        body.withUnsafeBytes { state.feed($0) }
        return state.names
    }
}

/// A `JSONListScanState` behind a transfer's tap: fed on the transfer's loop thread, read once the
/// transfer has returned (`finish`).
///
/// `@unchecked Sendable` without a lock: while the transfer runs only the loop thread touches
/// `state` (the tap's calls are sequential), and `finish` runs after `perform` has returned, which
/// the loop thread's resume of the transfer's continuation (under `TransportCore.state`) orders after
/// every call of the tap.
final class JSONListScanner: @unchecked Sendable {
    private struct State {
        var scan: JSONListScanState
        var ended = false
        var complete = false
    }
    private var state: State

    init(maxNames: Int) { state = State(scan: JSONListScanState(maxNames: maxNames)) }

    /// The tap: it keeps this scanner alive until the transfer has ended (`BodyTap.owner`).
    var tap: BodyTap {
        BodyTap(context: Unmanaged.passUnretained(self).toOpaque(), onData: { context, data, count in
            guard let context, let data, count > 0 else { return }
            let scanner = Unmanaged<JSONListScanner>.fromOpaque(context).takeUnretainedValue()
            scanner.state.scan.feed(UnsafeRawBufferPointer(start: data, count: count))
        }, onEnd: { context, complete in
            guard let context else { return }
            let scanner = Unmanaged<JSONListScanner>.fromOpaque(context).takeUnretainedValue()
            scanner.state.ended = true
            scanner.state.complete = complete != 0
        }, owner: self)
    }

    /// The names kept, whether every byte of the listing was scanned, and whether names were dropped.
    func finish() -> (names: [String], complete: Bool, overflow: Bool) {
        defer { state.scan.names = [] }
        return (state.scan.names, state.ended && state.complete, state.scan.overflow)
    }
}
