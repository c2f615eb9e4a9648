@testable import QRScanner
import Synchronization
import Testing

/// `--camera /dev/null`: a path that exists but is no capture device is one error with its reason, however often
/// the source looks at it again (libv4l2, which would complain on stderr at each look, never sees it).
@Suite(.timeLimit(.minutes(1))) struct CameraPathTests {
    /// Records what the source reports, and stops it once it has asked whether to go on `looks` times: each round of
    /// its retry loop asks at least twice, so the rounds have happened when it returns.
    final class CountingSink: FrameSink {
        let events = Mutex<[QREvent]>([])
        private let asked = Mutex(0)
        private let looks: Int

        init(stoppingAfter looks: Int) {
            self.looks = looks
        }

        func deliver(_ frame: Frame, live: Bool) -> Bool { false }
        func report(_ event: QREvent) { events.withLock { $0.append(event) } }
        var isStopped: Bool { asked.withLock { $0 += 1; return $0 > looks } }
    }

    @Test func aPathThatIsNoCaptureDeviceIsOneErrorAcrossManyRetries() {
        let sink = CountingSink(stoppingAfter: 40)
        CameraSource(device: "/dev/null", now: { .now }, retryInterval: .milliseconds(1)).run(into: sink)
        #expect(sink.events.withLock { $0 } == [.sourceError(id: "camera:/dev/null", detail: "not a V4L2 device")])
    }

    @Test func aMissingPathIsAbsentOnceAcrossManyRetries() {
        let sink = CountingSink(stoppingAfter: 40)
        CameraSource(device: "/dev/no-such-camera", now: { .now }, retryInterval: .milliseconds(1)).run(into: sink)
        #expect(sink.events.withLock { $0 } == [.sourceAbsent(id: "camera:/dev/no-such-camera")])
    }
}
