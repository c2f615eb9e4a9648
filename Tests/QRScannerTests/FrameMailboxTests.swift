@testable import QRScanner
import Foundation
import Testing

@Suite("Latency stays bounded: stale live frames are dropped, recorded ones are not", .timeLimit(.minutes(1)))
struct FrameMailboxTests {
    private func frame(_ number: Int) -> Frame {
        Frame(width: 1, height: 1, luma: [UInt8(number)], time: .seconds(number), arrivedAt: .now)
    }

    @Test func aLiveSourceLeavesOnlyItsLatestFrameWaitingAndEveryEvent() {
        let mailbox = FrameMailbox()
        mailbox.report(.sourceReady(id: "camera:/dev/video0", detail: "640x480 V4L2"))
        for number in 0..<5 {
            #expect(mailbox.deliver(frame(number), live: true))
        }
        mailbox.report(.sourceRemoved(id: "camera:/dev/video0", detail: "camera gone"))
        guard case .event(.sourceReady) = mailbox.take() else { Issue.record("the ready event comes first"); return }
        guard case .frame(let latest) = mailbox.take() else { Issue.record("then one frame"); return }
        #expect(latest.time == .seconds(4))
        guard case .event(.sourceRemoved) = mailbox.take() else { Issue.record("then the removal"); return }
        #expect(mailbox.droppedFrames == 4)
    }

    // A producer that waits runs on a thread of its own, as the scanner's reader does: never on the tasks' pool, which
    // has as many threads as cores (2 here), so that two tests waiting on it at once would wait for each other.
    @Test func aRecordedSourceWaitsSoThatNoFrameIsLost() {
        let mailbox = FrameMailbox()
        Thread {
            for number in 0..<6 {
                mailbox.deliver(Frame(width: 1, height: 1, luma: [UInt8(number)], time: .seconds(number), arrivedAt: .now), live: false)
            }
            mailbox.finish()
        }.start()
        var times: [Duration] = []
        while case .frame(let frame) = mailbox.take() {
            times.append(frame.time)
        }
        #expect(times == (0..<6).map { .seconds($0) })
        #expect(mailbox.droppedFrames == 0)
    }

    @Test func stoppingReleasesAWaitingProducer() async {
        let mailbox = FrameMailbox()
        #expect(mailbox.deliver(frame(0), live: false))
        async let delivered = withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread { continuation.resume(returning: mailbox.deliver(Frame(width: 1, height: 1, luma: [1], time: .seconds(1), arrivedAt: .now), live: false)) }.start()
        }
        while !mailbox.readerIsWaiting { await Task.yield() }
        mailbox.stop()
        #expect(await delivered == false)
        #expect(mailbox.take() == nil)
    }
}

@Suite("Unchanged frames are not decoded again")
struct FrameChangeDetectorTests {
    private func changed(_ detector: inout FrameChangeDetector, _ luma: [UInt8], width: Int = 64, height: Int = 48) -> Bool {
        luma.withUnsafeBufferPointer { detector.hasChanged($0, width: width, height: height) }
    }

    @Test func aStillSceneWithSensorNoiseIsUnchangedAndACodeEnteringIsAChange() {
        let scene = (0..<(64 * 48)).map { UInt8(truncatingIfNeeded: ($0 * 37) % 200 + 20) }
        let noisy = scene.enumerated().map { UInt8(Int($0.element) + ($0.offset % 7) - 3) }
        var withCode = scene
        for row in 10..<34 {
            for column in 20..<44 {
                withCode[row * 64 + column] = (row / 3 + column / 3) % 2 == 0 ? 0 : 255
            }
        }
        var detector = FrameChangeDetector()
        let verdicts = [
            changed(&detector, scene),
            changed(&detector, noisy),
            changed(&detector, withCode),
            changed(&detector, withCode),
            changed(&detector, withCode, width: 48, height: 64),
        ]
        // First frame decoded; noise alone is not a change; a code entering is; it staying is not; a new size is.
        #expect(verdicts == [true, false, true, false, true])
    }
}
