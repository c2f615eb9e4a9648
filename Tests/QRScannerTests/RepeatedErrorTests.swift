@testable import QRScanner
import Synchronization
import Testing

/// A source that fails the same way again and again (a y4m: path on /dev/urandom, reopened every
/// second) must not journal an error a second for ever.
@Suite struct RepeatedErrorTests {
    final class Recorder: FrameSink {
        let events = Mutex<[QREvent]>([])
        func deliver(_ frame: Frame, live: Bool) -> Bool { true }
        func report(_ event: QREvent) { events.withLock { $0.append(event) } }
        var isStopped: Bool { false }
    }

    @Test func errorsInARowAreReportedAtTheFirstSecondFourthAndEachDoublingAndReadyStartsAfresh() {
        let recorder = Recorder()
        let sink = RepeatLimitingSink(recorder)
        for attempt in 1...20 { sink.report(.sourceError(id: "y4m:/dev/urandom", detail: "bad header: garbage \(attempt)")) }
        sink.report(.sourceReady(id: "y4m:/dev/urandom", detail: "1x1 Y4M 1 fps Cmono"))
        sink.report(.sourceError(id: "y4m:/dev/urandom", detail: "truncated frame 0"))
        #expect(recorder.events.withLock { $0 } == [
            .sourceError(id: "y4m:/dev/urandom", detail: "bad header: garbage 1"),
            .sourceError(id: "y4m:/dev/urandom", detail: "bad header: garbage 2 (2 errors in a row)"),
            .sourceError(id: "y4m:/dev/urandom", detail: "bad header: garbage 4 (4 errors in a row)"),
            .sourceError(id: "y4m:/dev/urandom", detail: "bad header: garbage 8 (8 errors in a row)"),
            .sourceError(id: "y4m:/dev/urandom", detail: "bad header: garbage 16 (16 errors in a row)"),
            .sourceReady(id: "y4m:/dev/urandom", detail: "1x1 Y4M 1 fps Cmono"),
            .sourceError(id: "y4m:/dev/urandom", detail: "truncated frame 0"),
        ])
    }
}
