/// Where a source hands its frames and its state changes.
protocol FrameSink: Sendable {
    /// Hands a frame to the decoder. A live frame replaces one still waiting (stale frames
    /// are dropped, so latency stays one decode); a recorded one waits its turn, so none is lost.
    /// Returns false once the scanner stopped; the source should then return.
    @discardableResult func deliver(_ frame: Frame, live: Bool) -> Bool
    func report(_ event: QREvent)
    var isStopped: Bool { get }
}

/// A blocking producer of frames, run on a thread of its own.
protocol FrameSource: Sendable {
    /// Produces until the source ends for good or the sink stops; reopens what can come back.
    func run(into sink: some FrameSink)
}
