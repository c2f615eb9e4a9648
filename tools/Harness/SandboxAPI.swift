import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request the sandbox received, as it recorded it (admin routes are never recorded).
public struct RecordedRequest: Sendable, Hashable, Decodable {
    public let method: String
    /// Still percent-encoded, without the query.
    public let path: String
    /// The raw query string, "" when there was none.
    public let query: String
    /// Lower-case header names.
    public let headers: [String: String]
    public let body: String
    /// The sandbox's own time for a request it served, from its handler's start to the answer ready.
    public let serviceMilliseconds: Double?

    enum CodingKeys: String, CodingKey {
        case method, path, query, headers, body
        case serviceMilliseconds = "service_ms"
    }
}

/// A catalogue chip as the sandbox sees it now.
public struct SandboxChip: Sendable, Hashable, Decodable {
    public let name: String
    public let uid: String
    public let registration: String
    /// The last counter the sandbox accepted from this chip; nil before any fresh tap.
    public let lastCounter: Int?

    enum CodingKeys: String, CodingKey {
        case name, uid, registration
        case lastCounter = "last_counter"
    }
}

public enum SandboxError: Error, Sendable, CustomStringConvertible {
    case launchFailed(String)
    case admin(route: String, status: Int, body: String)

    public var description: String {
        switch self {
        case .launchFailed(let why): "sandbox API did not start: \(why)"
        case .admin(let route, let status, let body): "sandbox admin \(route) answered \(status): \(body)"
        }
    }
}

/// The local SealTrust sandbox API (tools/sandbox/sandbox.py) on a free loopback port, for one test or suite.
public final class SandboxAPI: Sendable {
    public let baseURL: URL
    public let port: Int
    private let child: ChildProcess

    private init(child: ChildProcess, port: Int) {
        self.child = child
        self.port = port
        self.baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    deinit {
        ListeningTool.stop(child)
    }

    /// Starts a sandbox and returns once it accepts connections. `window`: rate-limit window in seconds (60 when nil).
    /// `port`: 0 picks a free one; a former sandbox's port brings "the API" back where a client expects it. `faults`:
    /// in force from the first request, each as `POST /_sandbox/fault` takes it (JSON text).
    public static func start(window: Double? = nil, port: Int = 0, faults: [String] = [], startTimeout: Int64 = 15) throws -> SandboxAPI {
        let script = repositoryRoot().appendingPathComponent("tools/sandbox/sandbox.py").path
        var arguments = [script, "--port", String(port), "--host", "127.0.0.1", "--exit-with-stdin"]
        if let window {
            arguments += ["--window", String(window)]
        }
        for fault in faults { arguments += ["--fault", fault] }
        let tool = try ListeningTool.start(arguments, name: script, startTimeout: startTimeout)
        return SandboxAPI(child: tool.child, port: tool.port)
    }

    /// Terminates the server (SIGTERM) and waits for it; safe to call more than once.
    public func stop() {
        ListeningTool.stop(child)
    }

    /// Every non-admin request since start or the last reset, in arrival order.
    public func requests() async throws -> [RecordedRequest] {
        try JSONDecoder().decode([RecordedRequest].self, from: await admin("GET", "requests"))
    }

    /// Forgets requests, seen URLs, counters, rate windows, limits and faults; restores claims and tickets.
    public func reset() async throws {
        _ = try await admin("POST", "reset", json: [:])
    }

    /// Makes the next `count` requests under `path` (all of them until reset when nil) slow, replaced, or dropped;
    /// `hold`: each waits until `release()` (at most a minute) before it goes on.
    public func fault(
        path: String, delay: Double? = nil, status: Int? = nil, body: String? = nil, count: Int? = nil,
        contentType: String? = nil, headers: [String: String] = [:], closeConnection: Bool = false,
        lingerAfterAnswer: Double? = nil, method: String? = nil, hold: Bool = false
    ) async throws {
        var spec: [String: Any] = ["path": path, "headers": headers, "close": closeConnection, "hold": hold]
        spec["linger_s"] = lingerAfterAnswer
        spec["delay_s"] = delay
        spec["status"] = status
        spec["body"] = body
        spec["count"] = count
        spec["content_type"] = contentType
        spec["method"] = method
        _ = try await admin("POST", "fault", json: spec)
    }

    /// Lets every request a `hold` fault holds go on.
    public func release() async throws {
        _ = try await admin("POST", "release", json: [:])
    }

    /// The rate-limit window length, in seconds.
    public func setWindow(seconds: Double) async throws {
        _ = try await admin("POST", "window", json: ["seconds": seconds])
    }

    /// Overrides per-IP limits by bucket (verify, ticket, passport, certificate, history, claim) until reset.
    public func setLimits(_ limits: [String: Int]) async throws {
        _ = try await admin("POST", "limits", json: limits)
    }

    /// A fresh, validly signed URL for a catalogue chip, as its next tap would write it (Swift on Linux has no AES).
    public func tap(chip: String, counter: Int? = nil, host: String = "sealtrust.io") async throws -> String {
        var spec: [String: Any] = ["chip": chip, "host": host]
        spec["counter"] = counter
        let answer = try JSONSerialization.jsonObject(with: await admin("POST", "tap", json: spec))
        guard let url = (answer as? [String: Any])?["url"] as? String else {
            throw SandboxError.admin(route: "tap", status: 200, body: String(describing: answer))
        }
        return url
    }

    public func chips() async throws -> [SandboxChip] {
        try JSONDecoder().decode([SandboxChip].self, from: await admin("GET", "chips"))
    }

    private func admin(_ method: String, _ route: String, json: [String: Any]? = nil) async throws -> Data {
        var request = URLRequest(url: baseURL.appendingPathComponent("_sandbox").appendingPathComponent(route))
        request.httpMethod = method
        request.timeoutInterval = 10
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            throw SandboxError.admin(route: route, status: status, body: String(decoding: data, as: UTF8.self))
        }
        return data
    }
}
