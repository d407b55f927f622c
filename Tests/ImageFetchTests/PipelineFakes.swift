import Foundation
import Synchronization
import XCTest
@testable import ImageFetch

/// A loader that records every request and answers from a script per source identity. The last scripted
/// step repeats; an unscripted source answers 200 with its identity as bytes. With `constrained`, it
/// behaves as `SourceLoader` on a low-data network: http requests that do not allow it fail `.constrained`.
final class FakeLoader: DataLoading, Sendable {
    enum Step: Sendable {
        case ok([UInt8], headers: [(name: String, value: String)] = [])
        case notModified(headers: [(name: String, value: String)])
        case fail(FetchError)
    }

    private struct State { var scripts: [String: [Step]] = [:]; var requests: [LoadRequest] = []; var cancelAlls = 0 }
    private let state = Mutex(State())
    let constrained: Bool

    init(constrained: Bool = false) { self.constrained = constrained }

    func script(_ source: Source, _ steps: Step...) { state.withLock { $0.scripts[source.identity] = steps } }

    var requests: [LoadRequest] { state.withLock { $0.requests } }
    var loadedSources: [Source] { requests.map(\.source) }
    func loads(of source: Source) -> Int { requests.filter { $0.source == source }.count }
    var cancelAllCalls: Int { state.withLock { $0.cancelAlls } }
    func cancelAll() { state.withLock { $0.cancelAlls += 1 } }

    func load(_ request: LoadRequest) async throws(FetchError) -> LoadResponse {
        let step: Step = state.withLock { s in
            s.requests.append(request)
            if constrained, request.source.isNetwork, !request.allowsConstrainedNetworkAccess { return .fail(.constrained) }
            guard var steps = s.scripts[request.source.identity], !steps.isEmpty else {
                return .ok(Array(request.source.identity.utf8))
            }
            let next = steps.count > 1 ? steps.removeFirst() : steps[0]
            s.scripts[request.source.identity] = steps
            return next
        }
        switch step {
        case .ok(let bytes, let headers):
            if let tap = request.bodyTap {   // as the curl transport does: every byte, then the end
                bytes.withUnsafeBytes { if !$0.isEmpty { tap.onData(tap.context, $0.baseAddress!, $0.count) } }
                tap.onEnd(tap.context, 1)
            }
            return LoadResponse(bytes: bytes, headers: HTTPHeaders(headers), downloadedBytes: Int64(bytes.count))
        case .notModified(let headers):
            return LoadResponse(bytes: [], notModified: true, headers: HTTPHeaders(headers))
        case .fail(let error):
            if let tap = request.bodyTap { tap.onEnd(tap.context, 0) }
            throw error
        }
    }
}

/// A processor with deterministic output: the original is 640x480 png; a variant's bytes are
/// `"<identifier>:"` followed by the input, its size the requested box.
final class FakeProcessor: ImageProcessing, Sendable {
    private let calls = Mutex<[[UInt8]]>([])
    private let failure: FetchError?
    /// When set, network sources get a `FakeStreamingDecode` (decoding while downloading).
    let streams: Bool
    /// With `streams`: every streamed decode declines (as a JPEG with an ICC profile would).
    let streamsDecline: Bool
    private let decodes = Mutex<[FakeStreamingDecode]>([])

    init(failure: FetchError? = nil, streams: Bool = false, streamsDecline: Bool = false) {
        self.failure = failure
        self.streams = streams
        self.streamsDecline = streamsDecline
    }

    var streamingDecodes: [FakeStreamingDecode] { decodes.withLock { $0 } }

    func streamingDecode(for source: Source, processing: Processing, route: ProcessingRoute, maxPixels: Int64) -> (any StreamingDecode)? {
        guard streams, source.isNetwork, !processing.isOriginal else { return nil }
        let decode = FakeStreamingDecode(processing: processing, declines: streamsDecline)
        decodes.withLock { $0.append(decode) }
        return decode
    }

    var inputs: [[UInt8]] { calls.withLock { $0 } }

    static func output(_ bytes: [UInt8], _ processing: Processing) -> [UInt8] {
        processing.isOriginal ? bytes : Array("\(processing.identifier):".utf8) + bytes
    }

    func process(_ bytes: [UInt8], with processing: Processing, route: ProcessingRoute, maxPixels: Int64,
                 placeholders: Bool) throws(FetchError) -> ProcessedImage {
        calls.withLock { $0.append(bytes) }
        if let failure { throw failure }
        var image = processing.isOriginal ? ProcessedImage(bytes: bytes, width: 640, height: 480, format: "png")
            : ProcessedImage(bytes: FakeProcessor.output(bytes, processing), width: processing.width ?? 640,
                             height: processing.height ?? 480,
                             format: processing.format == .original ? "png" : processing.format.rawValue,
                             sourceWidth: 640, sourceHeight: 480, sourceFormat: "png")
        if placeholders { image.placeholders = Placeholders.decoding(image.bytes, maxPixels: maxPixels) }
        return image
    }

    func decodeFailure(_ bytes: [UInt8]) -> String? { nil }
}

/// Collects what a body tap receives. The tap's context is an unretained pointer to it.
final class TapRecorder: @unchecked Sendable {   // written on the transfer thread, read after perform returns
    var bytes: [UInt8] = []
    var ends: [Int32] = []
    var tap: BodyTap {
        BodyTap(context: Unmanaged.passUnretained(self).toOpaque(),
                onData: { ctx, data, n in
                    let r = Unmanaged<TapRecorder>.fromOpaque(ctx!).takeUnretainedValue()
                    r.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n))
                },
                onEnd: { ctx, complete in Unmanaged<TapRecorder>.fromOpaque(ctx!).takeUnretainedValue().ends.append(complete) })
    }
}

/// Keeps what its tap received; its result is `streamed:` + those bytes when they are the body.
final class FakeStreamingDecode: StreamingDecode, Sendable {
    let processing: Processing
    let declines: Bool
    let recorder = TapRecorder()

    init(processing: Processing, declines: Bool) {
        self.processing = processing
        self.declines = declines
    }

    var tap: BodyTap { recorder.tap }
    var received: [UInt8] { recorder.bytes }
    var ends: [Int32] { recorder.ends }

    func result(for bytes: [UInt8]) -> ProcessedImage? {
        guard !declines, ends == [1], received == bytes else { return nil }
        return ProcessedImage(bytes: Array("streamed:".utf8) + bytes, width: processing.width ?? 640,
                              height: processing.height ?? 480, format: "jpeg", sourceWidth: 640, sourceHeight: 480, sourceFormat: "jpeg")
    }
}

/// Records every wait instead of sleeping.
final class RecordingSleeper: Sleeping, Sendable {
    private let waits = Mutex<[Double]>([])
    var recorded: [Double] { waits.withLock { $0 } }
    func sleep(seconds: Double) async throws(FetchError) { waits.withLock { $0.append(seconds) } }
}

/// A pipeline over a temporary `DiskCache`, the fakes above and no memory cache.
final class PipelineFixture {
    let directory: String
    let cache: DiskCache
    let loader: FakeLoader
    let processor: FakeProcessor
    let sleeper = RecordingSleeper()
    let pipeline: ImagePipeline

    init(constrained: Bool = false, processorFailure: FetchError? = nil, streams: Bool = false, streamsDecline: Bool = false) {
        directory = NSTemporaryDirectory() + "imgfetch-pipeline-\(UUID().uuidString)"
        cache = DiskCache(directory: directory, sizeLimit: nil, synchronous: false)
        loader = FakeLoader(constrained: constrained)
        processor = FakeProcessor(failure: processorFailure, streams: streams, streamsDecline: streamsDecline)
        pipeline = ImagePipeline(cache: cache, memoryCache: nil, loader: loader, processor: processor,
                                 pool: ProcessingPool(width: 1), sleeper: sleeper)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Puts an entry in the cache directly, as an earlier run would have.
    func seed(_ source: Source, _ processing: Processing = .original, bytes: [UInt8], expires: Double?,
              etag: String? = nil, lastModified: String? = nil) throws {
        let key = CacheKey(source: source, processing: processing)
        try cache.store(bytes, entry: CacheEntry(key: key.rawValue, identity: source.identity, source: source.description,
                                                 variant: processing.identifier, format: "png", width: 640, height: 480,
                                                 bytes: 0, checksum: "", created: FileSystem.now() - 1000, expires: expires,
                                                 etag: etag, lastModified: lastModified))
    }

    func retrieve(_ request: ImageRequest, file: StaticString = #filePath, line: UInt = #line) async throws -> ImageResult {
        switch await pipeline.retrieve(request) {
        case .success(let result): return result
        case .failure(let failure):
            XCTFail("expected success, got \(failure.error)", file: file, line: line)
            throw failure
        }
    }

    func fail(_ request: ImageRequest, file: StaticString = #filePath, line: UInt = #line) async throws -> RetrievalFailure {
        switch await pipeline.retrieve(request) {
        case .success(let result):
            XCTFail("expected failure, got \(result.cache) from \(result.source)", file: file, line: line)
            throw FetchError.cancelled
        case .failure(let failure): return failure
        }
    }
}
