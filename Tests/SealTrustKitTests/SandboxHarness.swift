import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SealTrustKit
import Synchronization
import TestSupport
import Testing

/// A session token the test changes between calls, counting how often the client asks for it.
final class TokenBox: Sendable {
    private let state: Mutex<(token: String?, asked: Int)>

    init(_ token: String? = nil) {
        state = Mutex((token, 0))
    }

    var token: String? {
        get { state.withLock { $0.token } }
        set { state.withLock { $0.token = newValue } }
    }

    var timesAsked: Int { state.withLock { $0.asked } }

    func provide() -> String? {
        state.withLock { state in
            state.asked += 1
            return state.token
        }
    }
}

/// A fresh sandbox for one test, stopped when the test ends.
func withSandbox(window: Double? = nil, _ body: (SandboxAPI) async throws -> Void) async throws {
    let sandbox = try await startSandbox(window: window)
    defer { sandbox.stop() }
    try await body(sandbox)
}

/// Starts the sandbox from a thread with no signal blocked. Swift's concurrency
/// threads block SIGTERM, `Process` passes that mask on to the child, and a
/// sandbox started from one would then ignore `stop()` and keep the test waiting.
func startSandbox(window: Double? = nil) async throws -> SandboxAPI {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            var nothingBlocked = sigset_t()
            sigemptyset(&nothingBlocked)
            pthread_sigmask(SIG_SETMASK, &nothingBlocked, nil)
            continuation.resume(with: Result { try SandboxAPI.start(window: window) })
        }
    }
}

func makeClient(_ sandbox: SandboxAPI, tokens: TokenBox = TokenBox(), timeout: TimeInterval = 5,
                window: TimeInterval = 60, extraHosts: [String] = []) -> SealTrustClient {
    SealTrustClient(configuration: SealTrustConfiguration(
        baseURL: sandbox.baseURL, timeout: timeout, clientIdentifier: "sealtrust-kit-tests/1",
        extraHosts: extraHosts, rateLimitWindow: window, accessTokenProvider: { tokens.provide() }
    ))
}

/// The error a call threw, or a recorded issue when it did not throw a `SealTrustError`.
func sealTrustError(_ call: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation) async -> SealTrustError? {
    do {
        let value = try await call()
        Issue.record("expected an error, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch let error as SealTrustError {
        return error
    } catch {
        Issue.record("expected a SealTrustError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Verifies a chip URL and turns whatever comes back into the outcome a screen shows.
func outcome(_ client: SealTrustClient, url: String, latitude: Double? = nil, longitude: Double? = nil) async -> ScanOutcome {
    do {
        return ScanOutcome.from(try await client.verifyScan(url: url, latitude: latitude, longitude: longitude))
    } catch {
        return ScanOutcome.from(error)
    }
}

struct NotAChipLink: Error, CustomStringConvertible {
    let url: String
    var description: String { "the sandbox's tap is not a chip link: \(url)" }
}

/// The proof of a fresh tap of a catalogue chip, as `ScanURL` reads it.
func tappedProof(_ sandbox: SandboxAPI, chip: String) async throws -> ChipProof {
    let url = try await sandbox.tap(chip: chip)
    guard case .chip(let proof) = ScanURL.read(url) else { throw NotAChipLink(url: url) }
    return proof
}

/// The identifiers of catalogue items the tests read.
enum Catalogue {
    static let chronograph = "0x6efdb2c27761ebe6ee62cb80c5f1eee0a15c1223619b8da212232cea2ec78b23"
    static let sealOpened = "0x0fb4309a0c75add93bb76b171f624d1f05d94d260802d8b37554dca900677651"
    static let sealOpenedDegrade = "0x177be3aacd8ef71bbcc681c3b3e600eec186d2a7c446a8142620b62b5cf95ac0"
    static let sealOpenedSilent = "0x2492f5233d4ea6f1afef3a0d8dd761b7104ac6380137683dfdbb443e5ea0594b"
    static let chronographGTIN = "03701234567890"
}

/// Calls `call` until the client's own bucket stops refusing it (`.tooManyCalls`, which sends nothing), and records an
/// issue when that came before `retryAfterSeconds` from `refusedAt` (less the second the figure was rounded up by)
/// or not within 5 s after it.
func callOnceTheBucketReopens<Value>(
    refusedAt: ContinuousClock.Instant, retryAfterSeconds: Int, sourceLocation: SourceLocation = #_sourceLocation,
    _ call: () async throws -> Value
) async throws -> Value {
    let deadline = refusedAt + .seconds(retryAfterSeconds + 5)
    while true {
        do {
            let value = try await call()
            #expect(ContinuousClock.now - refusedAt >= .seconds(retryAfterSeconds - 1), sourceLocation: sourceLocation)
            return value
        } catch SealTrustError.tooManyCalls where ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
