import CCurl

/// A progress meter the http loader's transfers write as their bodies arrive (on the transfer
/// thread) and any thread reads (`reading()`): atomics in C (`ifc_meter`), no lock, nothing
/// called back. One meter may serve many transfers; see `Reading`.
public final class TransferMeter: @unchecked Sendable {
    /// What the meter says now.
    public struct Reading: Sendable, Equatable {
        /// Body bytes every transfer of the meter received so far (only grows): the rate's measure.
        public var total: Int64
        /// Of the response that wrote last (one transfer at a time: the current download), its
        /// body bytes so far and its length (nil when the server sent no Content-Length).
        public var current: Int64
        public var expected: Int64?
        /// Transfers in libcurl now (started, not finished; those queued in the engine are not).
        public var running: Int

        public init(total: Int64 = 0, current: Int64 = 0, expected: Int64? = nil, running: Int = 0) {
            self.total = total
            self.current = current
            self.expected = expected
            self.running = running
        }
    }

    /// `@unchecked Sendable`: the C meter is only touched through its atomics, freed at deinit,
    /// and a transfer carrying it is kept from outliving it (`HTTPLoader.load`).
    let pointer: OpaquePointer?

    public init() { pointer = ifc_meter_new() }
    deinit { ifc_meter_free(pointer) }

    public func reading() -> Reading {
        var total: Int64 = 0, current: Int64 = 0, expected: Int64 = -1, running: Int32 = 0
        ifc_meter_read(pointer, &total, &current, &expected, &running)
        return Reading(total: total, current: current, expected: expected >= 0 ? expected : nil, running: Int(running))
    }
}
