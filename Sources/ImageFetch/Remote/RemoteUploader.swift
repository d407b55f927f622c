/// The background queue of the remote tier's uploads: at most `capacity` uploads wait (a full
/// queue makes the enqueuer wait: backpressure, memory stays bounded), at most `concurrency` run at
/// once. An upload's failure is a warning (`takeWarnings` and `finish` return them; `warned`, when
/// given, is told one is waiting: the run wakes its reader), never an error of the image. `finish(timeout:)` waits for the rest at most that long, then abandons it;
/// `cancel()` abandons at once (an interrupt). After either, new uploads are dropped.
public actor RemoteUploader {
    public typealias Job = @Sendable () async -> String?

    /// Uploads waiting at most (default 64), and running at once (default 4).
    public let capacity: Int
    public let concurrency: Int

    private var queue: [Job] = []
    private var head = 0
    private var running = 0
    private var closed = false
    private var warnings: [String] = []
    /// Uploads done, failed, and abandoned (for reports and tests).
    public private(set) var completed = 0
    public private(set) var failed = 0
    public private(set) var abandoned = 0
    private var spaceWaiters: [CheckedContinuation<Void, Never>] = []
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var nextID = 0

    private let warned: (@Sendable () -> Void)?

    public init(capacity: Int = 64, concurrency: Int = 4, warned: (@Sendable () -> Void)? = nil) {
        self.capacity = max(1, capacity)
        self.concurrency = max(1, concurrency)
        self.warned = warned
    }

    private var pending: Int { queue.count - head }
    private var idle: Bool { pending == 0 && running == 0 }

    /// Queues `job`, waiting while `capacity` uploads are pending. Dropped once the uploader has
    /// finished or been cancelled.
    public func enqueue(_ job: @escaping Job) async {
        while !closed && pending >= capacity {
            await withCheckedContinuation { spaceWaiters.append($0) }
        }
        guard !closed else { return }
        queue.append(job)
        startMore()
    }

    private func startMore() {
        while !closed && running < concurrency && pending > 0 {
            let job = queue[head]
            head += 1
            if head > 64 && head * 2 > queue.count { queue.removeFirst(head); head = 0 }
            running += 1
            let id = nextID
            nextID += 1
            tasks[id] = Task { [weak self] in
                let warning = await job()
                await self?.done(id, warning: warning)
            }
            if !spaceWaiters.isEmpty { spaceWaiters.removeFirst().resume() }
        }
        if idle { resumeIdle() }
    }

    private func done(_ id: Int, warning: String?) {
        guard tasks.removeValue(forKey: id) != nil else { return }   // abandoned meanwhile
        running -= 1
        completed += 1
        if let warning {
            failed += 1
            warnings.append(warning)
            warned?()
        }
        startMore()
    }

    private func resumeIdle() {
        let waiters = idleWaiters
        idleWaiters = []
        for w in waiters { w.resume() }
    }

    /// Waits for every queued upload, at most `timeout` seconds, then abandons what is left (one
    /// warning says how many) and takes no more. Returns the warnings since the last call (and
    /// clears them). Uploads queued after a finish that did not abandon run as before.
    /// The warnings since the last call (or `finish`), taken: for a caller that reports them as it goes.
    public func takeWarnings() -> [String] {
        defer { warnings = [] }
        return warnings
    }

    public func finish(timeout: Double) async -> [String] {
        if !idle {
            let timer = Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(max(0, min(timeout, 86_400)) * 1e9))
                if !Task.isCancelled { await self?.abandon("not finished after \(Self.seconds(timeout)) s (--remote-timeout)") }
            }
            await withCheckedContinuation { idleWaiters.append($0) }
            timer.cancel()
        }
        defer { warnings = [] }
        return warnings
    }

    /// Abandons every queued and running upload at once (an interrupt), with a warning when any was left.
    public func cancel() {
        abandon("interrupted")
    }

    private func abandon(_ why: String) {
        closed = true
        let left = pending + running
        abandoned += left
        if left > 0 {
            let warning = "remote cache: \(left) upload\(left == 1 ? "" : "s") abandoned: \(why)"
            warnings.append(warning)
        }
        for task in tasks.values { task.cancel() }
        tasks = [:]
        queue = []
        head = 0
        running = 0
        let waiters = spaceWaiters
        spaceWaiters = []
        for w in waiters { w.resume() }
        resumeIdle()
    }

    static func seconds(_ t: Double) -> String {
        t == t.rounded() && abs(t) < 1e15 ? String(Int(t)) : String(t)
    }
}
