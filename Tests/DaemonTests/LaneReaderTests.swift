import Foundation
import JSONCore
import Testing
import TestSupport

/// Two NFC readers in two lanes (issue 44), through the private pcscd's two virtual readers: each tap's events carry
/// its reader's lane, and the verdict lights only the reader that read it. In the NFC suite, which owns the readers.
extension NFCTests {
    @Test func twoReadersInTwoLanesEachTapCarriesItsLaneAndLightsItsReaderAlone() async throws {
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let dock1 = try VirtualTag.start(reader: 0, chip: "authentic")
        defer { dock1.stop() }
        let dock2 = try VirtualTag.start(reader: 1, chip: "spare-a")
        defer { dock2.stop() }
        let daemon = try ScanDaemon(api: api, nfc: "Virtual PCD", extra: [
            "--lane", "dock1=nfc:\(dock1.readerName)", "--lane", "dock2=nfc:\(dock2.readerName)",
        ]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (watcher, hello) = try daemon.connect()
        var ready = Set((hello["sources"]?.arrayValue ?? []).filter { $0["state"]?.string == "ready" }.compactMap { $0["id"]?.string })
        while !ready.isSuperset(of: ["nfc:\(dock1.readerName)", "nfc:\(dock2.readerName)"]) {
            let source = try #require(try watcher.next(timeout: .seconds(20)) { $0["type"]?.string == "source" && $0["state"]?.string == "ready" })
            #expect(source["lane"]?.string == (source["id"]?.string == "nfc:\(dock1.readerName)" ? "dock1" : "dock2"))
            if let id = source["id"]?.string { ready.insert(id) }
        }

        let second = try await tapAndWatchTheReader(dock2, watcher: watcher)
        #expect(second.outcome == "authentic" && second.command == "\(Self.accepted) -> 9000")
        try await dock1.present()
        let first = try awaitVerdict(watcher)
        _ = try await pseudoCommand(dock1, after: 0)
        try await dock1.remove()
        #expect(first.scan["lane"]?.string == "dock1" && first.verdict["lane"]?.string == "dock1")
        #expect(first.scan["source"]?.string == "nfc:\(dock1.readerName)")

        // Each reader showed one verdict: its own.
        let shown = { (tag: VirtualTag) in tag.pseudoAPDUs().filter { $0.hasPrefix("FF0040") }.count }
        #expect(shown(dock1) == 1 && shown(dock2) == 1, "dock1: \(dock1.pseudoAPDUs()), dock2: \(dock2.pseudoAPDUs())")
        let status = try runProduct("sealtrust-scanctl", ["--socket", daemon.socketPath, "status", "--json"])
        let lanes = try JSON.parse(utf8: Array(status.output.utf8))["lanes"]?.arrayValue ?? []
        #expect(lanes.map { $0["counters"]?["verdicts"]?["authentic"]?.integerValue } == [1, 1], "\(status.output)")
    }
}
