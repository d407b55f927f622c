/// A bounded hand-over of values from many producing tasks to one consumer: `send` waits while
/// `capacity` values are undelivered, so a slow consumer holds back the work instead of letting
/// finished images pile up in memory. `finish` ends the sequence after the values already sent.
/// `wake` hands the consumer's next `receive` a `.woken` before any value (what woke it, a posted
/// notice or the status line's timer, is then read), once however many wakes came meanwhile.
final class ResultChannel<Element: Sendable>: Sendable {
    /// What `receive` returns.
    enum Received {
        case value(Element)
        case finished
        case woken
    }

    private struct State {
        var buffer: [Element] = []
        var head = 0
        var finished = false
        /// A `wake` that found no consumer waiting: the next `receive` returns `.woken`.
        var woken = false
        var receiver: CheckedContinuation<Received, Never>?
        var senders: [CheckedContinuation<Void, Never>] = []
        var undelivered: Int { buffer.count - head }
    }

    private let state = Lock(State())
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func send(_ element: Element) async {
        // Without suspending while there is room (the common case).
        let delivered = state.withLock { s -> Bool in
            if let receiver = s.receiver {
                s.receiver = nil
                receiver.resume(returning: .value(element))
                return true
            }
            guard s.undelivered < capacity else { return false }
            s.buffer.append(element)
            return true
        }
        if delivered { return }
        await withCheckedContinuation { (sender: CheckedContinuation<Void, Never>) in
            state.withLock { s in
                if let receiver = s.receiver {
                    s.receiver = nil
                    receiver.resume(returning: .value(element))
                    sender.resume()
                    return
                }
                s.buffer.append(element)
                if s.undelivered <= capacity { sender.resume() } else { s.senders.append(sender) }
            }
        }
    }

    /// The next value; nil once finished and drained.
    func next() async -> Element? {
        while true {
            switch await receive() {
            case .value(let element): return element
            case .finished: return nil
            case .woken: continue
            }
        }
    }

    /// The next value, `.finished` once finished and drained, or `.woken` when `wake` was called
    /// since the last `receive` or while it waits (before a value, so that what woke it is read
    /// before the results that came after it).
    func receive() async -> Received {
        // Without suspending when a value is waiting.
        let ready = state.withLock { s -> Received? in
            if s.woken { s.woken = false; return .woken }
            if s.head < s.buffer.count { return .value(take(&s)) }
            return s.finished ? .finished : nil
        }
        if let ready { return ready }
        return await withCheckedContinuation { (receiver: CheckedContinuation<Received, Never>) in
            state.withLock { s in
                if s.woken {
                    s.woken = false
                    receiver.resume(returning: .woken)
                } else if s.head < s.buffer.count {
                    receiver.resume(returning: .value(take(&s)))
                } else if s.finished {
                    receiver.resume(returning: .finished)
                } else {
                    s.receiver = receiver
                }
            }
        }
    }

    /// Resumes a consumer waiting in `receive` with `.woken`, or makes its next `receive` return it.
    /// From any thread or task.
    func wake() {
        state.withLock { s in
            guard !s.finished else { return }
            guard let receiver = s.receiver else { s.woken = true; return }
            s.receiver = nil
            receiver.resume(returning: .woken)
        }
    }

    /// The oldest value (one is there), letting a waiting sender in.
    private func take(_ s: inout State) -> Element {
        let element = s.buffer[s.head]
        s.head += 1
        if s.head == s.buffer.count { s.buffer.removeAll(keepingCapacity: true); s.head = 0 }
        if !s.senders.isEmpty { s.senders.removeFirst().resume() }
        return element
    }

    func finish() {
        state.withLock { s in
            s.finished = true
            if let receiver = s.receiver, s.head == s.buffer.count {
                s.receiver = nil
                receiver.resume(returning: .finished)
            }
        }
    }
}
