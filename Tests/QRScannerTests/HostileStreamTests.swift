import Foundation
import QRScanner
import Testing

/// Y4M streams made to break the reader: each is a source error or plays to its end, never a crash
/// and never memory that only the header asked for.
@Suite("Hostile YUV4MPEG2 streams", .timeLimit(.minutes(1)))
struct HostileStreamTests {
    /// Writes `header`, then `frames` frames of `frameBytes` bytes each, and plays the file.
    private func play(_ header: String, frames: Int = 0, frameBytes: Int = 0, tail: [UInt8] = []) async throws -> [QREvent] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).y4m").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var bytes = Array((header + "\n").utf8)
        for _ in 0..<frames { bytes += Array("FRAME\n".utf8) + [UInt8](repeating: 0x80, count: frameBytes) }
        bytes += tail
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return await collectEvents(QRScanner(source: .y4m(path: path)))
    }

    @Test func aFrameRateOfOneFrameInABillionSecondsPlaysToTheEnd() async throws {
        let events = try await play("YUV4MPEG2 W1 H1 F1:1000000000 Cmono", frames: 12, frameBytes: 1)
        #expect(events.errors.isEmpty)
        #expect(events.removals == ["end of stream after 12 frames"])
    }

    @Test(arguments: ["F9223372036854775807:1", "F1:9223372036854775807", "F4294967296:1"])
    func aFrameRateBeyondWhatY4MWritersStoreIsABadHeader(rate: String) async throws {
        let events = try await play("YUV4MPEG2 W1 H1 \(rate) Cmono", frames: 1, frameBytes: 1)
        #expect(events.errors == ["bad header: bad frame rate \"\(rate)\""])
    }

    @Test func aSideOver8192IsRefusedAtTheHeader() async throws {
        let events = try await play("YUV4MPEG2 W16384 H16384 F25:1 C444alpha", tail: Array("FRAME\n".utf8) + [1, 2, 3])
        #expect(events.errors == ["bad header: frame size 16384x16384 out of range (1 to 8192)"])
    }

    @Test func aFrameOver64MiBIsRefusedAtTheHeader() async throws {
        let events = try await play("YUV4MPEG2 W8192 H8192 F25:1 C444", tail: Array("FRAME\n".utf8) + [1, 2, 3])
        #expect(events.errors == ["bad header: frames of 201326592 bytes, over the 64 MiB limit"])
    }

    @Test func theLargestFrameAllowedStillPlaysAndAShortOneIsReported() async throws {
        let events = try await play("YUV4MPEG2 W8192 H8192 F25:1 Cmono", tail: Array("FRAME\n".utf8) + [1, 2, 3])
        #expect(events.readyDetails == ["8192x8192 Y4M 25 fps Cmono"])
        #expect(events.errors == ["truncated frame 0: 3 of 67108864 bytes"])
    }
}
