import CJpeg
import Synchronization

/// The JPEG fast path, decoding while the body downloads (jpeg_stream.c): when the last byte
/// arrives only the resize and the encode are left, instead of the whole decode. Its result is the
/// one `JpegFastPath.thumbnail` gives for the same bytes; anything else declines.
///
/// `@unchecked Sendable`: `stream` is only used through jpeg_stream.c's functions, which lock
/// internally, and `result` takes it under `taken`, once; the pointer itself never changes.
final class JpegStreamDecode: StreamingDecode, @unchecked Sendable {
    /// The owner's reference to the stream, released when this decode and every transfer its tap
    /// was given to are gone (`BodyTap.owner`): a transfer may outlive the decode's caller.
    private final class Handle: @unchecked Sendable {
        let stream: OpaquePointer
        init(_ stream: OpaquePointer) { self.stream = stream }
        deinit { ifj_stream_release(stream) }
    }

    private let handle: Handle
    private var stream: OpaquePointer { handle.stream }
    private let taken = Atomic<Bool>(false)
    let tap: BodyTap

    /// Downloads that end sooner than this after their first byte are decoded whole on the pool
    /// instead: overlapping them gains nothing, and decoding them beside the pool would compete for
    /// the cores (their decoder thread only waits, then ends; the bytes were copied meanwhile).
    static let defaultStartDelay = 0.05

    /// What the pixels become (jpeg, webp, png: `JpegFastPath.output`) and at which quality.
    private let output: ImageFormat
    private let quality: Int?

    init?(width: Int?, height: Int?, cover: Bool, quality: Int?, maxPixels: Int64, output: ImageFormat = .jpeg,
          startDelay: Double = JpegStreamDecode.defaultStartDelay) {
        var opts = JpegFastPath.options(width: width, height: height, cover: cover, quality: quality, maxPixels: maxPixels, output: output)
        guard let stream = ifj_stream_new(&opts, Int32(clamping: Int((startDelay * 1000).rounded()))) else { return nil }
        let handle = Handle(stream)
        self.handle = handle
        self.output = output
        self.quality = quality
        self.tap = BodyTap(context: UnsafeMutableRawPointer(stream), onData: ifj_stream_append, onEnd: ifj_stream_end, owner: handle)
    }

    func result(for bytes: [UInt8]) -> ProcessedImage? {
        guard !taken.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
        var result = ifj_result()
        guard ifj_stream_result(stream, bytes.count, &result) == Int32(IFJ_OK),
              let made = JpegFastPath.output(result, as: output, quality: quality) else { return nil }
        return made.processed.dropping(JpegMetadataCheck.damage(in: bytes))
    }
}
