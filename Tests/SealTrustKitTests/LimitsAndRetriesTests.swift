import Foundation
import SealTrustKit
import TestSupport
import Testing

@Suite("Limits and retries: local refusal, Retry-After, one retry for reads only", .timeLimit(.minutes(1)))
struct LimitsAndRetriesTests {
    @Test func callOverTheBucketLimitIsRefusedLocallyUntilTheWindowSlides() async throws {
        // Long enough for 20 calls on a loaded machine (a 2 s window was not), short for the test's wait.
        let window = 5
        try await withSandbox(window: Double(window)) { sandbox in
            let client = makeClient(sandbox, tokens: TokenBox("tok-user"), window: TimeInterval(window))
            var firstAnswered: ContinuousClock.Instant?
            for _ in 0..<20 {
                _ = try await client.claimState(ticketID: "tkt-issued")
                if firstAnswered == nil { firstAnswered = .now }
            }
            let refused = await sealTrustError { try await client.claimState(ticketID: "tkt-issued") }
            let refusedAt = ContinuousClock.now
            guard case .tooManyCalls(let seconds)? = refused else {
                Issue.record("expected a local refusal, got \(String(describing: refused))")
                return
            }
            #expect((1...window).contains(seconds))
            #expect(refused?.kind == nil && refused?.retryAfterSeconds == seconds)
            #expect(ScanOutcome.from(try #require(refused)).verdict == .tooManyCalls)
            #expect(try await sandbox.requests().count == 20)

            _ = try await client.certificate(identifier: Catalogue.chronograph)
            #expect(try await sandbox.requests().count == 21)

            // The client's window opens again a window after it sent the first call; the sandbox's, a window after it
            // counted it, which was before its answer: from then on both take the call.
            try await Task.sleep(until: try #require(firstAnswered) + .seconds(window), clock: .continuous)
            let reopened = try await callOnceTheBucketReopens(refusedAt: refusedAt, retryAfterSeconds: seconds) {
                try await client.claimState(ticketID: "tkt-issued")
            }
            #expect(reopened.state == "issued")
            #expect(try await sandbox.requests().count == 22)
        }
    }

    @Test func nothingGoesToABucketBeforeRetryAfterHasPassed() async throws {
        try await withSandbox(window: 2) { sandbox in
            try await sandbox.setLimits(["history": 1])
            let client = makeClient(sandbox)
            _ = try await client.history(identifier: Catalogue.chronograph)
            let limitedAt = ContinuousClock.now
            let limited = await sealTrustError { try await client.history(identifier: Catalogue.chronograph) }
            #expect(limited?.httpStatus == 429 && limited?.code == "RATE_LIMITED")
            let waitSeconds = try #require(limited?.retryAfterSeconds)
            #expect((1...2).contains(waitSeconds))

            let refused = await sealTrustError { try await client.history(identifier: Catalogue.chronograph) }
            #expect(refused == .tooManyCalls(retryAfterSeconds: waitSeconds))
            #expect(try await sandbox.requests().count == 2)

            _ = try await client.certificate(identifier: Catalogue.chronograph)
            #expect(try await sandbox.requests().count == 3)

            let reopened = try await callOnceTheBucketReopens(refusedAt: limitedAt, retryAfterSeconds: waitSeconds + 1) {
                try await client.history(identifier: Catalogue.chronograph)
            }
            #expect(reopened.isEmpty == false)
            #expect(try await sandbox.requests().count == 4)
        }
    }

    @Test func tooManyCallsWithoutRetryAfterHoldsTheBucketSixtySeconds() async throws {
        try await withSandbox { sandbox in
            try await sandbox.fault(path: "/scans/verify", status: 429, body: "{\"detail\": \"slow down\"}", count: 1)
            let client = makeClient(sandbox)
            let first = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(first.verdict == .tooManyCalls && first.retryAfterSeconds == 60)
            let second = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(second.verdict == .tooManyCalls)
            #expect((59...60).contains(second.retryAfterSeconds ?? 0))
            #expect(second.error?.httpStatus == nil)
            #expect(try await sandbox.requests().count == 1)
            _ = try await client.passport(identifier: Catalogue.chronograph)
            #expect(try await sandbox.requests().count == 2)
        }
    }

    @Test func retryAfterMayBeAnHTTPDateAndAnUnreadableOneMeansSixtySeconds() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        try await withSandbox { sandbox in
            let inTenSeconds = formatter.string(from: Date().addingTimeInterval(10))
            try await sandbox.fault(path: "/history/", status: 429, body: "{}", count: 1, headers: ["Retry-After": inTenSeconds])
            let dated = await sealTrustError { try await makeClient(sandbox).history(identifier: Catalogue.chronograph) }
            #expect((8...11).contains(dated?.retryAfterSeconds ?? 0), "\(inTenSeconds)")
            try await sandbox.fault(path: "/history/", status: 429, body: "{}", count: 1, headers: ["Retry-After": "soon"])
            let unreadable = await sealTrustError { try await makeClient(sandbox).history(identifier: Catalogue.chronograph) }
            #expect(unreadable?.retryAfterSeconds == 60)
        }
    }

    @Test(arguments: ["1000000000000", "Fri, 31 Dec 9999 23:59:59 GMT"])
    func anAbsurdRetryAfterIsObeyedForOneHourAtMostAndSaysWhatWasAsked(retryAfter: String) async throws {
        try await withSandbox { sandbox in
            try await sandbox.fault(path: "/scans/verify", status: 429, body: "{}", count: 1, headers: ["Retry-After": retryAfter])
            let client = makeClient(sandbox)
            let first = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(first.verdict == .tooManyCalls && first.retryAfterSeconds == 3_600)
            #expect((first.error?.retryAfterRequested ?? 0) > 3_600, "the log says what the API asked for")
            let second = await outcome(client, url: try await sandbox.tap(chip: "spare-a"))
            #expect(second.verdict == .tooManyCalls)
            #expect((3_599...3_600).contains(second.retryAfterSeconds ?? 0))
            #expect(try await sandbox.requests().count == 1)
        }
    }

    @Test func readIsRetriedOnceAfterABadGatewayOrADroppedConnection() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            for status in [502, 503, 504] {
                try await sandbox.reset()
                try await sandbox.fault(path: "/history/", status: status, body: "{\"detail\": \"busy\"}", count: 1)
                #expect(try await client.history(identifier: Catalogue.chronograph).count == 5)
                let requests = try await sandbox.requests()
                #expect(requests.filter { $0.path.hasPrefix("/history/") }.count == 2, "\(status): \(requests.map { "\($0.method) \($0.path)" })")
            }
            try await sandbox.reset()
            try await sandbox.fault(path: "/certificate/", count: 1, closeConnection: true)
            #expect(try await client.certificate(identifier: Catalogue.chronograph).status == "valid")
            // Counted by path, and all of them named when the count is wrong: one run in about ten of the whole
            // suite once saw a request too many here, and the bare count could not say which.
            let requests = try await sandbox.requests()
            #expect(requests.filter { $0.path.hasPrefix("/certificate/") }.count == 2, "\(requests.map { "\($0.method) \($0.path)" })")
        }
    }

    @Test func readIsRetriedOnlyOnceAndOnlyForTransientFailures() async throws {
        try await withSandbox { sandbox in
            let client = makeClient(sandbox)
            try await sandbox.fault(path: "/passport/", status: 503, body: "{\"detail\": \"down\"}")
            let down = await sealTrustError { try await client.passport(identifier: Catalogue.chronograph) }
            #expect(down?.httpStatus == 503)
            #expect(try await sandbox.requests().count == 2)

            try await sandbox.reset()
            let missing = await sealTrustError { try await client.passport(identifier: "0x00") }
            #expect(missing?.httpStatus == 404)
            try await sandbox.fault(path: "/passport/", status: 500, body: "{\"detail\": \"bug\"}", count: 1)
            let broken = await sealTrustError { try await client.passport(identifier: Catalogue.chronograph) }
            #expect(broken?.httpStatus == 500)
            #expect(try await sandbox.requests().count == 2)
        }
    }

    @Test func slowReadTimesOutAndIsRetriedOnce() async throws {
        try await withSandbox { sandbox in
            try await sandbox.fault(path: "/certificate/", delay: 2, count: 1)
            let client = makeClient(sandbox, timeout: 1)
            let started = ContinuousClock.now
            #expect(try await client.certificate(identifier: Catalogue.chronograph).status == "valid")
            #expect(ContinuousClock.now - started >= .milliseconds(900))
            #expect(try await sandbox.requests().count == 2)
        }
    }
}
