/// A bounded hand-over of values from many producing tasks to one consumer: `send` waits while
/// `capacity` values are undelivered, so a slow consumer holds back the work instead of letting
/// finished images pile up in memory. `finish` ends the sequence after the values already sent.
final class ResultChannel<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var head = 0
        var finished = false
        var receiver: CheckedContinuation<Element?, Never>?
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
                receiver.resume(returning: element)
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
                    receiver.resume(returning: element)
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
        // Without suspending when a value is waiting.
        let ready = state.withLock { s -> Element?? in
            if s.head < s.buffer.count { return .some(take(&s)) }
            return s.finished ? .some(nil) : nil
        }
        if let ready { return ready }
        return await withCheckedContinuation { (receiver: CheckedContinuation<Element?, Never>) in
            state.withLock { s in
                if s.head < s.buffer.count {
                    receiver.resume(returning: take(&s))
                } else if s.finished {
                    receiver.resume(returning: nil)
                } else {
                    s.receiver = receiver
                }
            }
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
                receiver.resume(returning: nil)
            }
        }
    }
}
