import JSONCore
import TestSupport

/// Protocol 1's messages as JSON values, over the harness's line client.
extension LineClient {
    func send(_ value: JSON) throws { try send(value.encoded()) }

    func readJSON(timeout: Duration = .seconds(10)) throws -> JSON? {
        guard let line = try readLine(timeout: timeout) else { return nil }
        return try JSON.parse(line)
    }

    /// Reads until a message matches, keeping every message read on the way in `seen`.
    func next(timeout: Duration = .seconds(15), seen: inout [JSON], where matches: (JSON) -> Bool) throws -> JSON? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = try readJSON(timeout: deadline - ContinuousClock.now) else { return nil }
            seen.append(message)
            if matches(message) { return message }
        }
        return nil
    }

    func next(timeout: Duration = .seconds(15), where matches: (JSON) -> Bool) throws -> JSON? {
        var seen: [JSON] = []
        return try next(timeout: timeout, seen: &seen, where: matches)
    }

    /// Reads messages until `done` holds for all of them so far, or until the deadline; returns them in order.
    /// For events whose order the protocol leaves open: none is passed over while waiting for another.
    func collect(timeout: Duration = .seconds(15), until done: ([JSON]) -> Bool) throws -> [JSON] {
        var seen: [JSON] = []
        let deadline = ContinuousClock.now + timeout
        while !done(seen), ContinuousClock.now < deadline {
            guard let message = try readJSON(timeout: deadline - ContinuousClock.now) else { break }
            seen.append(message)
        }
        return seen
    }
}

extension JSON {
    var string: String? { stringValue }
    var integer: Int64? { integerValue }
}

extension ScanDaemon {
    /// A connected client that has read its `hello`.
    func connect() throws -> (client: LineClient, hello: JSON) {
        let client = try LineClient(path: socketPath)
        guard let hello = try client.readJSON(), hello["type"]?.string == "hello" else {
            throw HarnessError("no hello from the daemon")
        }
        return (client, hello)
    }
}
