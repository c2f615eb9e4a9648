import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NFCReader
import Testing
import TestSupport

/// A bad tag the virtual NTAG 424 DNA can play, and what the monitor must say about it.
struct BadTag: Sendable, CustomTestStringConvertible {
    let mode: String
    /// nil: any malformed NDEF (the detail names what the parser met first).
    let failure: TagReadFailure?

    var testDescription: String { mode }

    func matches(_ reported: TagReadFailure) -> Bool {
        if let failure { return reported == failure }
        if case .malformedNDEF = reported { return true }
        return false
    }

    static let all: [BadTag] = [
        BadTag(mode: "no-ndef-app", failure: .noNDEFApplication),
        BadTag(mode: "no-ndef-file", failure: .emptyNDEF),
        BadTag(mode: "empty-ndef", failure: .emptyNDEF),
        BadTag(mode: "text-record", failure: .noURIRecord),
        BadTag(mode: "length-beyond-file", failure: .lengthBeyondFile),
        BadTag(mode: "garbage", failure: nil),
        BadTag(mode: "short-file", failure: .malformedNDEF("record 1's payload runs past the end of the message")),
        BadTag(mode: "invalid-utf8", failure: .malformedNDEF("URI record is not valid UTF-8")),
        BadTag(mode: "sw-6982", failure: .statusWord(0x6982)),
        BadTag(mode: "sw-6a82", failure: .statusWord(0x6A82)),
        BadTag(mode: "remove-mid-read", failure: .removedDuringRead),
    ]
}

/// The monitor against a real pcscd of the test process's own, vpcd's two virtual readers and the virtual NTAG 424 DNA.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct NFCMonitorTests {
    static let reader0 = "Virtual PCD 00 00"
    static let reader1 = "Virtual PCD 00 01"

    /// A monitor that has found the readers it should; a pcscd out of reach fails the test here, loudly.
    /// `now`: the clock the monitor dates tags by.
    func startMonitor(filter: String? = nil, expecting readers: [String] = [reader0, reader1],
                      now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) async throws -> EventRecorder {
        _ = try PrivatePCSCD.shared()  // before the monitor's first PC/SC call: libpcsclite picks its pcscd once
        let recorder = EventRecorder(NFCMonitor(readerFilter: filter, now: now))
        for reader in readers {
            do {
                _ = try await recorder.next(within: .seconds(10), "\(reader) attached") { $0 == .readerAttached(name: reader) }
            } catch {
                recorder.stop()
                throw MonitorTestFailure("the private pcscd is not reachable or lacks vpcd's reader '\(reader)': \(recorder.all)")
            }
        }
        return recorder
    }

    /// Presents the tag and returns the read the monitor made of it, checking it is the URL the tag signed.
    func tap(_ tag: VirtualTag, on monitor: EventRecorder, within timeout: Duration = .seconds(10)) async throws -> TagRead {
        let mark = monitor.count
        try await tag.present()
        let event = try await monitor.nextTag(on: tag.readerName, after: mark, within: timeout)
        guard case .tagRead(let read) = event else { throw MonitorTestFailure("expected a URL from \(tag.readerName), got \(event)") }
        try await tag.settle()
        let signed = try #require(tag.signedReads.last)
        #expect(read.uri == signed.url, "the monitor must hand over exactly the URL the tag signed")
        return read
    }

    /// The APDUs the tag answered since line `mark` of its transcript, as hex.
    func commands(of tag: VirtualTag, after mark: Int = 0) -> [String] {
        tag.transcript.dropFirst(mark).compactMap { line in
            line.hasPrefix("APDU ") ? String(line.dropFirst(5).prefix { $0 != " " }) : nil
        }
    }

    @Test func goodTagGivesTheURLItSignedInFiveCommands() async throws {
        let tag = try VirtualTag.start(reader: 0, chip: "authentic")
        defer { tag.stop() }
        let monitor = try await startMonitor()
        defer { monitor.stop() }

        let read = try await tap(tag, on: monitor)
        #expect(try SUNCheck.verify(read.uri) == .init(chip: "authentic", counter: 1))
        #expect(read.uri.hasPrefix("https://sealtrust.io/c?picc_data="))
        #expect(read.reader == Self.reader0)
        #expect(read.readDuration > .zero && read.readDuration < .seconds(2))
        #expect(commands(of: tag) == [
            "00A4040007D276000085010100",  // NDEF application
            "00A4000C02E103", "00B000000F",  // capability container
            "00A4000C02E104", "00B0000000",  // NDEF file: NLEN and message in one READ BINARY of MLe (256)
        ])
        try await tag.remove()
    }

    /// A tap is dated by the clock the monitor is given (the daemon's, so that a tap's `readAt` and its verdict are on
    /// one clock): here one that stands still an hour ahead of the system's, so the card-present time is that
    /// instant and the read took no time on it.
    @Test func aTapIsDatedByTheClockTheMonitorIsGiven() async throws {
        let tag = try VirtualTag.start(reader: 0, chip: "authentic")
        defer { tag.stop() }
        let fixed = ContinuousClock.now + .seconds(3_600)
        let monitor = try await startMonitor(now: { fixed })
        defer { monitor.stop() }

        let read = try await tap(tag, on: monitor)
        #expect(read.presentedAt == fixed)
        #expect(read.readDuration == .zero)
        try await tag.remove()
    }

    @Test(arguments: BadTag.all)
    func badTagGivesItsFailureAndTheNextGoodTagIsRead(_ bad: BadTag) async throws {
        let tag = try VirtualTag.start(reader: 0, chip: "spare-a", mode: bad.mode)
        defer { tag.stop() }
        let monitor = try await startMonitor()
        defer { monitor.stop() }

        let mark = monitor.count
        try await tag.present()
        let event = try await monitor.nextTag(on: tag.readerName, after: mark)
        guard case .tagFailed(let reader, let failure) = event else {
            throw MonitorTestFailure("\(bad.mode): expected a failure, got \(event)")
        }
        #expect(reader == Self.reader0)
        #expect(bad.matches(failure), "\(failure)")
        #expect(!failure.detail.isEmpty)
        try await tag.remove()

        try await tag.set(mode: "good")
        let read = try await tap(tag, on: monitor)
        #expect(try SUNCheck.verify(read.uri).chip == "spare-a")
        #expect(monitor.tagEvents(on: Self.reader0).count == 2, "one event per presentation: \(monitor.all)")
        try await tag.remove()
    }

    @Test func longURLIsReadInMLeChunksWithNothingBetweenSelectAndLastRead() async throws {
        let tag = try VirtualTag.start(reader: 0, chip: "spare-b", mode: "long-url")
        defer { tag.stop() }
        let monitor = try await startMonitor()
        defer { monitor.stop() }

        let read = try await tap(tag, on: monitor)
        #expect(read.uri.utf8.count == 1024)
        #expect(try SUNCheck.verify(read.uri) == .init(chip: "spare-b", counter: 1))

        let sent = commands(of: tag)
        let ndefSelect = try #require(sent.firstIndex(of: "00A4000C02E104"))
        let reads = sent[(ndefSelect + 1)...]
        // A long URI record: 6-byte header, type "U", prefix code, then the URL without "https://".
        let fileBytes = 2 + 6 + 1 + 1 + (read.uri.utf8.count - "https://".utf8.count)
        let mle = 0x20
        #expect(reads.count == (fileBytes + mle - 1) / mle, "as few READ BINARY as MLe allows")
        for (index, command) in reads.enumerated() {
            let offset = index * mle
            let length = min(mle, fileBytes - offset)
            #expect(command == String(format: "00B0%04X%02X", offset, length), "command \(index) after the NDEF SELECT")
        }
        try await tag.remove()
    }

    /// While the tag stays, the monitor goes on watching: two taps on the other reader are each read, and the tag left
    /// on the first is not read again.
    @Test func tagLeftOnTheReaderIsReadOnceWhileTheOtherReaderIsTapped() async throws {
        let tag = try VirtualTag.start(reader: 0, chip: "spare-a")
        defer { tag.stop() }
        let other = try VirtualTag.start(reader: 1, chip: "spare-b")
        defer { other.stop() }
        let monitor = try await startMonitor()
        defer { monitor.stop() }

        _ = try await tap(tag, on: monitor)
        for _ in 0..<2 {
            _ = try await tap(other, on: monitor)
            try await other.remove()
        }
        #expect(monitor.tagEvents(on: Self.reader1).count == 2)
        #expect(monitor.tagEvents(on: Self.reader0).count == 1, "a tag left on the reader is read once: \(monitor.all)")
        #expect(tag.signedReads.count == 1)
        try await tag.remove()
    }

    @Test func tagPresentedAgainIsReadAgainWithAHigherCounterThatTheSandboxAccepts() async throws {
        let sandbox = try SandboxAPI.start()
        defer { sandbox.stop() }
        let tag = try VirtualTag.start(reader: 0, chip: "authentic", counter: 61)
        defer { tag.stop() }
        let monitor = try await startMonitor()
        defer { monitor.stop() }

        let first = try await tap(tag, on: monitor)
        try await tag.remove()
        let second = try await tap(tag, on: monitor)
        try await tag.remove()

        #expect(first.uri != second.uri)
        #expect(try SUNCheck.verify(first.uri) == .init(chip: "authentic", counter: 62))
        #expect(try SUNCheck.verify(second.uri) == .init(chip: "authentic", counter: 63))
        #expect(second.presentedAt > first.presentedAt)
        #expect(monitor.tagEvents(on: Self.reader0).count == 2)
        // The sandbox checks AES-CMAC for real and refuses a counter that does not grow.
        #expect(try await sandboxStatus(of: first.uri, sandbox) == "authentic")
        #expect(try await sandboxStatus(of: second.uri, sandbox) == "authentic")
        #expect(try await sandbox.chips().first { $0.name == "authentic" }?.lastCounter == 63)
    }

    /// What the sandbox API's verifyScan says of a scanned URL (the `status` of a 200 answer).
    private func sandboxStatus(of url: String, _ sandbox: SandboxAPI) async throws -> String? {
        var request = URLRequest(url: sandbox.baseURL.appendingPathComponent("scans/verify"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["url": url])
        let (body, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode
        guard status == 200 else {
            throw MonitorTestFailure("sandbox answered \(String(describing: status)) to \(url): \(String(decoding: body, as: UTF8.self))")
        }
        return (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["status"] as? String
    }

    @Test func pcscdRestartedWhileWatchingAndTheNextTapIsReadWithinFiveSeconds() async throws {
        let pcscd = try PrivatePCSCD.shared()
        let station = SystemPCSCD.current()
        let tag = try VirtualTag.start(reader: 0, chip: "spare-b")
        defer { tag.stop() }
        let monitor = try await startMonitor()
        defer { monitor.stop() }

        let mark = monitor.count
        let stopped = try #require(pcscd.pid)
        try await pcscd.stop()
        _ = try await monitor.next(after: mark, "serviceUnavailable") { event in
            if case .serviceUnavailable = event { true } else { false }
        }
        #expect(monitor.all.dropFirst(mark).contains(.readerRemoved(name: Self.reader0)))
        #expect(monitor.all.dropFirst(mark).contains(.readerRemoved(name: Self.reader1)))
        // pcscd stays away while the monitor knocks three more times: still one serviceUnavailable.
        let knocks = try PCSCDStandIn(socketPath: pcscd.socketPath)
        try await knocks.waitForConnections(3)
        knocks.close()

        try await pcscd.start()
        #expect(pcscd.pid != stopped)
        #expect(SystemPCSCD.current() == station, "only the tests' own pcscd restarts; the machine's runs on")
        let tapped = ContinuousClock.now
        let read = try await tap(tag, on: monitor, within: .seconds(5))
        #expect(ContinuousClock.now - tapped < .seconds(5))
        #expect(try SUNCheck.verify(read.uri).chip == "spare-b")
        let outages = monitor.all.dropFirst(mark).filter { event in
            if case .serviceUnavailable = event { true } else { false }
        }
        #expect(outages.count == 1, "serviceUnavailable once per outage: \(monitor.all)")
        #expect(monitor.all.dropFirst(mark).contains(.readerAttached(name: Self.reader0)))
        try await tag.remove()
    }

    @Test func bothReadersReadAtOnce() async throws {
        let tag0 = try VirtualTag.start(reader: 0, chip: "authentic")
        defer { tag0.stop() }
        let tag1 = try VirtualTag.start(reader: 1, chip: "spare-a")
        defer { tag1.stop() }
        let monitor = try await startMonitor()
        defer { monitor.stop() }

        async let read0 = tap(tag0, on: monitor)
        async let read1 = tap(tag1, on: monitor)
        let (first, second) = try await (read0, read1)
        #expect(first.reader == Self.reader0)
        #expect(second.reader == Self.reader1)
        #expect(try SUNCheck.verify(first.uri).chip == "authentic")
        #expect(try SUNCheck.verify(second.uri).chip == "spare-a")
        try await tag0.remove()
        try await tag1.remove()
    }

    @Test func aSlowTagOnOneReaderDoesNotHoldUpTheOther() async throws {
        let slow = try VirtualTag.start(reader: 0, chip: "spare-a", mode: "slow-read")
        defer { slow.stop() }
        let quick = try VirtualTag.start(reader: 1, chip: "spare-b")
        defer { quick.stop() }
        let monitor = try await startMonitor()
        defer { monitor.stop() }

        let mark = monitor.count
        try await slow.present()
        _ = try await slow.waitForLine { $0.hasPrefix("READ ctr=") }  // the slow read is under way
        let quickRead = try await tap(quick, on: monitor, within: .seconds(2))
        #expect(quickRead.readDuration < .seconds(1))
        #expect(monitor.tagEvents(on: Self.reader0).isEmpty, "the slow read is still going on")

        let slowEvent = try await monitor.nextTag(on: Self.reader0, after: mark)
        guard case .tagRead(let slowRead) = slowEvent else { throw MonitorTestFailure("slow tag: \(slowEvent)") }
        #expect(slowRead.readDuration >= .seconds(3))
        #expect(try SUNCheck.verify(slowRead.uri).chip == "spare-a")
        try await slow.remove()
        try await quick.remove()
    }

    @Test func readerFilterKeepsOnlyMatchingReaders() async throws {
        let tag0 = try VirtualTag.start(reader: 0, chip: "authentic")
        defer { tag0.stop() }
        let tag1 = try VirtualTag.start(reader: 1, chip: "spare-b")
        defer { tag1.stop() }
        let monitor = try await startMonitor(filter: "00 01", expecting: [Self.reader1])
        defer { monitor.stop() }

        // A tag on the reader the filter leaves out, then one on the reader it keeps: the second read comes, the
        // first never does.
        try await tag0.present()
        let read = try await tap(tag1, on: monitor)
        #expect(read.reader == Self.reader1)
        #expect(!monitor.all.contains(.readerAttached(name: Self.reader0)))
        #expect(monitor.tagEvents(on: Self.reader0).isEmpty)
        #expect(tag0.signedReads.isEmpty, "no command may reach a reader outside the filter")
        try await tag0.remove()
        try await tag1.remove()
    }

    @Test func filterMatchingNoReaderSaysNoReaders() async throws {
        _ = try PrivatePCSCD.shared()
        let monitor = EventRecorder(NFCMonitor(readerFilter: "No Such Reader"))
        defer { monitor.stop() }
        let event = try await monitor.next("first event") { _ in true }
        #expect(event == .noReaders)
        // An unfiltered monitor sees both readers and a tap on one of them: the filtered one still says nothing more.
        let tag = try VirtualTag.start(reader: 0, chip: "spare-a")
        defer { tag.stop() }
        let unfiltered = try await startMonitor()
        defer { unfiltered.stop() }
        _ = try await tap(tag, on: unfiltered)
        try await tag.remove()
        #expect(monitor.all == [.noReaders])
    }

    @Test func stoppingTheStreamEndsTheMonitorThreads() async throws {
        // The earlier tests' monitors are gone too, each ended by its consumer.
        try await waitForNoMonitorThreads()
        let monitor = try await startMonitor()
        let running = threadNames()
        #expect(running.filter { $0 == "nfc-monitor" }.count == 1)
        #expect(running.filter { $0 == "nfc-read" }.count == 2, "one read thread per reader")
        monitor.stop()
        try await waitForNoMonitorThreads()
    }

    private func waitForNoMonitorThreads() async throws {
        let deadline = ContinuousClock.now + .seconds(2)
        while threadNames().contains(where: { $0.hasPrefix("nfc-") }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!threadNames().contains { $0.hasPrefix("nfc-") }, "threads left: \(threadNames())")
    }

    private func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .newlines)
        }
    }
}
