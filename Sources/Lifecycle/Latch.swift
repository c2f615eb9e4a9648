/// Opens once; `wait` returns when it is open or when the waiting task is cancelled.
struct Latch: Sendable {
    private let opened: AsyncStream<Never>
    private let continuation: AsyncStream<Never>.Continuation

    init() {
        (opened, continuation) = AsyncStream.makeStream()
    }

    func open() {
        continuation.finish()
    }

    /// For one waiter.
    func wait() async {
        for await _ in opened {}
    }
}
