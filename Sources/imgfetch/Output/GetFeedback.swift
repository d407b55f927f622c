import ImageFetch

/// What `get` shows while it works: the retry notices, on stderr as the pipeline posts them (one
/// line each, none with --quiet), and, when `meter`, the download meter once the retrieval has
/// taken `delay` (cleared at `stop()`), redrawn when the meter's line's timer (`StatusLine.tick`)
/// wakes the reader: the library calls nothing back. Started only when the image is not a fresh
/// hit, so a hit costs nothing. One task draws (this one) until `stop()` returns; then the caller prints.
final class GetFeedback: Sendable {
    /// Seconds before the meter appears (a quick download never shows one), and between readings.
    static let delay = 0.5
    static let interval = 0.1

    private let task: Task<Void, Never>

    init(_ activity: PipelineActivity, meter: Bool, quiet: Bool) {
        task = Task {
            let started = FileSystem.monotonic()
            let line = meter ? DownloadMeter() : nil
            // The rate's first reading: before any byte of this retrieval (those of the first tick count).
            line?.sample(activity.meter.reading(), now: started)
            line?.line.tick(every: GetFeedback.interval) { activity.wake() }
            func show(_ notices: [RetryNotice]) {
                guard !quiet, !notices.isEmpty else { return }
                line?.clear()
                for notice in notices { Console.errorLine("retry: " + notice.message) }
            }
            // The notices as they are posted; with the meter, a reading at each of its ticks too.
            while !Task.isCancelled {
                show(await activity.nextNotices())
                guard let line, !Task.isCancelled else { continue }
                // Read from the start, drawn once the retrieval has taken `delay`.
                if FileSystem.monotonic() - started >= GetFeedback.delay {
                    line.draw(activity.meter.reading())
                } else {
                    line.sample(activity.meter.reading())
                }
            }
            line?.line.stopTicking()
            line?.clear()
            show(await activity.takeNotices())
        }
    }

    /// `pipeline.retrieve(request)`, with feedback while it works unless the image is a fresh hit.
    static func retrieve(_ request: ImageRequest, with pipeline: ImagePipeline, meter: Bool, quiet: Bool) async
        -> Result<ImageResult, RetrievalFailure> {
        let plan = pipeline.plan(request)
        if let hit = pipeline.freshHit(plan) { return .success(hit) }
        guard meter || !quiet else { return await pipeline.retrieve(plan) }   // nothing to show
        let feedback = GetFeedback(pipeline.activity, meter: meter, quiet: quiet)
        let outcome = await pipeline.retrieve(plan)
        await feedback.stop()
        return outcome
    }

    /// Takes the last notices and clears the meter; stderr is the caller's again when it returns.
    func stop() async {
        task.cancel()
        await task.value
    }
}
