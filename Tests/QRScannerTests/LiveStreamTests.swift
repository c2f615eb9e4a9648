import Foundation
import Glibc
import QRScanner
import Testing

@Suite("QR codes read from live Y4M streams (FIFO, stdin)", .timeLimit(.minutes(1)))
struct LiveStreamTests {
    @Test func aFIFOGivesTheFilesScansAndIsOpenedAgainForItsNextWriter() async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("qr-fifo-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let first = try Fixtures.play(Fixtures.stream("appearances"), into: fifo, framesPerSecond: 50)
        var second: Process?
        var events: [QREvent] = []
        for await event in QRScanner(source: .y4m(path: fifo)).events() {
            events.append(event)
            guard case .sourceRemoved = event else { continue }
            if second != nil { break }
            second = try Fixtures.play(Fixtures.stream("gs1"), into: fifo, framesPerSecond: 50)
        }
        first.waitUntilExit()
        second?.waitUntilExit()
        let payload = Fixtures.payload(of: "appearances")
        #expect(events.codes == [payload, payload, "https://id.gs1.org/01/09506000134352"])
        #expect(events.readyDetails == ["320x240 Y4M 10 fps C420jpeg", "320x240 Y4M 10 fps C420jpeg"])
        #expect(events.removals == ["end of stream after 73 frames", "end of stream after 1 frames"])
        #expect(events.errors.isEmpty)
    }

    @Test func aFIFOWrittenFlatOutGivesTheFilesScans() async throws {
        let file = Fixtures.stream("brief-appearances")
        let fromFile = await collectEvents(QRScanner(source: .y4m(path: file)))
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("qr-fifo-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // No pacing at all: the writer is as fast as the pipe lets it be.
        let writer = try Fixtures.play(file, into: fifo, framesPerSecond: 0)
        let fromFIFO = await collectEvents(QRScanner(source: .y4m(path: fifo))) { events in
            if case .sourceRemoved = events.last { true } else { false }
        }
        writer.waitUntilExit()
        let expected = Fixtures.streamManifest["brief-appearances"]?.payloads ?? []
        #expect(fromFile.codes == expected)
        #expect(fromFIFO.codes == fromFile.codes)
        #expect(fromFIFO.removals == ["end of stream after 33 frames"])
    }

    @Test func stdinIsReadThenEndsForGood() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let savedStandardInput = dup(STDIN_FILENO)
        dup2(ends[0], STDIN_FILENO)
        close(ends[0])
        defer {
            dup2(savedStandardInput, STDIN_FILENO)
            close(savedStandardInput)
        }
        let stream = try Data(contentsOf: URL(fileURLWithPath: Fixtures.stream("gs1")))
        let writer = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        let written = Task.detached {
            writer.write(stream)
            try? writer.close()
        }
        let events = await collectEvents(QRScanner(source: .y4m(path: "-")))
        await written.value
        #expect(events == [
            .sourceReady(id: "y4m:-", detail: "320x240 Y4M 10 fps C420jpeg"),
            .code(source: "y4m:-", payload: "https://id.gs1.org/01/09506000134352"),
            .sourceRemoved(id: "y4m:-", detail: "end of stream after 1 frames"),
        ])
    }

    @Test func aFIFOWithoutAWriterWaitsSilentlyAndStopsWhenTheConsumerLeaves() async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("qr-fifo-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let listener = Task {
            await collectEvents(QRScanner(source: .y4m(path: fifo)))
        }
        // The source holds the FIFO open, waiting for a writer: then it has had its chance to say something.
        while !Self.isOpenHere(fifo) { await Task.yield() }
        listener.cancel()
        let events = await listener.value
        #expect(events.isEmpty)
    }

    /// Whether this process holds `path` open.
    private static func isOpenHere(_ path: String) -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }
    }
}
