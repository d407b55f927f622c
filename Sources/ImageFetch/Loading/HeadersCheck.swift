/// A check of a 2xx response's headers before its body (`TransferRequest.headersCheck`): called
/// on the transfer thread with the header lines joined by "\n", it answers 1 (stop the transfer)
/// or 0 (go on). `@unchecked Sendable`: `context` is only passed back to `onHeaders`.
public struct HeadersCheck: @unchecked Sendable {
    public let context: UnsafeMutableRawPointer
    public let onHeaders: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32
}
