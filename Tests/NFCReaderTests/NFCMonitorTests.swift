import Foundation
import NFCReader
import Testing
import TestSupport

/// The monitor against the real pcscd, vpcd's two virtual readers and the virtual NTAG 424 DNA.
@Suite(.serialized)
struct NFCMonitorTests {
    static let reader0 = "Virtual PCD 00 00"
    static let reader1 = "Virtual PCD 00 01"

    /// A monitor that has found the readers it should; a pcscd out of reach fails the test here, loudly.
    func startMonitor(filter: String? = nil, expecting readers: [String] = [reader0, reader1]) async throws -> EventRecorder {
        let recorder = EventRecorder(NFCMonitor(readerFilter: filter))
        for reader in readers {
            do {
                _ = try await recorder.next(within: .seconds(10), "\(reader) attached") { $0 == .readerAttached(name: reader) }
            } catch {
                recorder.stop()
                throw MonitorTestFailure("pcscd is not reachable or lacks vpcd's reader '\(reader)' (run `make services`): \(recorder.all)")
            }
        }
        return recorder
    }

    @Test func goodTagGivesTheURLItSigned() async throws {
        let tag = try VirtualTag.start(reader: 0, chip: "authentic")
        defer { tag.stop() }
        let monitor = try await startMonitor()
        defer { monitor.stop() }

        let mark = monitor.count
        try await tag.present()
        let event = try await monitor.nextTag(on: tag.readerName, after: mark)
        guard case .tagRead(let read) = event else { throw MonitorTestFailure("expected a read, got \(event)") }
        let signed = try #require(tag.signedReads.last)
        #expect(read.uri == signed.url)
        #expect(try SUNCheck.verify(read.uri) == .init(chip: "authentic", counter: signed.counter))
        #expect(read.readDuration > .zero && read.readDuration < .seconds(2))
        try await tag.remove()
    }
}
