import Glibc
import JSONCore
import POSIXSupport
import ScanJournal
import StationWire

/// Every client's state, and the work of one turn of the server thread's poll(2) over the listening socket, the wake
/// pipe and every client. `SharedServerLoop` holds it under one lock: the server thread takes it for a turn, and a
/// publishing thread takes it to write an event to the clients itself, so that publish and replay stay ordered.
final class ServerLoop {
    static let maximumLineBytes = 65_536
    /// Gives clients this long to take what was published before stop; one that does not read cannot hold up the exit.
    static let stopFlushLimit = Duration.seconds(1)

    private let listenDescriptor: Int32
    private let wake: ServerWake
    private let configuration: VerdictServerConfiguration
    private let journal: Journal
    private let delegate: any VerdictServerDelegate
    private var clients: [Int32: ClientConnection] = [:]
    private var nextClientNumber: UInt64 = 1
    /// Set when accept(2) ran out of descriptors or memory: listening resumes at that instant.
    private var acceptResumes: ContinuousClock.Instant?
    private var scratch = [UInt8](repeating: 0, count: 65_536)
    /// The largest line or replay batch sent so far.
    private var largestSendBytes = 0

    /// What a client may have pending: the configured bound, or room for a few of the largest events
    /// sent, so that one event bigger than the bound never drops every reader, live or replaying, at its seq.
    private var queueBound: Int { max(configuration.clientQueueBytes, 4 * largestSendBytes) }
    /// Below this much pending output, a replaying client gets its next batch from the journal.
    private let replayLowWater: Int
    /// What every replay together may read from the journal in one turn of the loop: however many clients replay,
    /// a live command or event waits at most one such turn (a batch's reading and parsing) to be served.
    static let replayBytesPerTurn = 65_536
    /// The client that the last turn's replay work ended with: the next turn starts after it.
    private var lastReplayServed: UInt64 = 0
    /// Set when a client gets output queued or is closed: the server thread's poll set no longer fits.
    private(set) var pollSetChanged = false

    init(
        listenDescriptor: Int32, wake: ServerWake, configuration: VerdictServerConfiguration, journal: Journal,
        delegate: any VerdictServerDelegate
    ) {
        self.listenDescriptor = listenDescriptor
        self.wake = wake
        self.configuration = configuration
        self.journal = journal
        self.delegate = delegate
        self.replayLowWater = max(4_096, min(262_144, configuration.clientQueueBytes / 4))
    }

    /// Fills the poll set for the next turn (the wake pipe first, the listening socket second) and returns the turn's
    /// deadline: now while a replay waits for room, when accepting resumes while it is paused, else none.
    func prepareTurn(_ descriptors: inout [pollfd], _ order: inout [Int32]) -> ContinuousClock.Instant? {
        pollSetChanged = false
        descriptors.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        descriptors.append(pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0))
        if let resumes = acceptResumes, resumes <= .now { acceptResumes = nil }
        descriptors.append(pollfd(fd: acceptResumes == nil ? listenDescriptor : -1, events: Int16(POLLIN), revents: 0))
        var replayWaiting = false
        for (descriptor, client) in clients {
            var events = client.readingEnded ? Int16(0) : Int16(POLLIN)
            if client.queuedBytes > 0 { events |= Int16(POLLOUT) }
            if client.replay != nil && client.queuedBytes < replayLowWater { replayWaiting = true }
            descriptors.append(pollfd(fd: descriptor, events: events, revents: 0))
            order.append(descriptor)
        }
        return replayWaiting ? .now : acceptResumes
    }

    /// Serves what poll found ready. A client closed since `prepareTurn` is no longer in `clients` and is skipped.
    func serveTurn(_ descriptors: [pollfd], _ order: [Int32]) {
        for (index, descriptor) in order.enumerated() {
            let revents = Int32(descriptors[index + 2].revents)
            guard revents != 0, let client = clients[descriptor] else { continue }
            if client.readingEnded && revents & (POLLHUP | POLLERR | POLLNVAL) != 0 {
                disconnect(client)  // gone both ways: nothing more can reach it
            } else if revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL) != 0 {
                receive(from: client)
            }
            if !client.isClosed && revents & POLLOUT != 0 && !client.flush() {
                disconnect(client)
            }
            closeIfAnswered(client)
        }
        if descriptors[1].revents != 0 { acceptClients() }
        continueReplays()
    }

    /// At stop: what was published reaches clients that read within `stopFlushLimit`, then every client is closed.
    func finish() {
        flushQueues(until: .now + ServerLoop.stopFlushLimit)
        for client in Array(clients.values) { disconnect(client) }
    }

    /// Sends each client's queued output as the kernel takes it, so the last verdicts before stop reach their readers.
    private func flushQueues(until deadline: ContinuousClock.Instant) {
        while true {
            let waiting = clients.values.filter { $0.queuedBytes > 0 }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard !waiting.isEmpty, remaining > .zero else { return }
            var descriptors = waiting.map { pollfd(fd: $0.descriptor, events: Int16(POLLOUT), revents: 0) }
            guard (try? Poll.wait(&descriptors, until: deadline)) != nil else { return }
            for (client, descriptor) in zip(waiting, descriptors) where descriptor.revents != 0 && !client.flush() {
                disconnect(client)
            }
        }
    }

    // MARK: Events

    /// Writes `event` to each client that gets it, on the caller's thread; what a client's socket does not take now
    /// waits in its queue for the server thread.
    func deliver(_ event: JournaledEvent, requester: ClientID?) {
        var bytes = Array(event.line.utf8)
        bytes.append(0x0A)
        let type = EventType(rawValue: event.type)
        for client in Array(clients.values) {
            guard client.replay == nil, event.seq > client.liveThreshold else { continue }
            let isOwn = client.id == requester
            if isOwn && type == .verdict { client.answersOwed -= 1 }
            if isOwn || client.watched.map({ watched in type.map(watched.contains) ?? false }) ?? true {
                send(bytes, to: client)
            }
            closeIfAnswered(client)
        }
    }

    /// A `verify` answered by an error instead of its verdict: the requester, if still here, owes no verdict for it.
    func refuse(requestID: JSON?, requester: ClientID, _ code: ErrorCode, _ detail: String) {
        guard let client = clients.values.first(where: { $0.id == requester }) else { return }
        client.answersOwed -= 1
        sendError(code, detail, id: requestID ?? .null, to: client)
        closeIfAnswered(client)
    }

    /// The answer to one of `requester`'s commands that the daemon gave from another thread (`passport`).
    func answer(_ message: JSON, to requester: ClientID) {
        guard let client = clients.values.first(where: { $0.id == requester }) else { return }
        client.answersOwed -= 1
        send(message, to: client)
        closeIfAnswered(client)
    }

    /// Queues and sends at once what the kernel takes; a client whose queue would pass its bound is dropped.
    private func send(_ bytes: [UInt8], to client: ClientConnection) {
        guard !client.isClosed else { return }
        largestSendBytes = max(largestSendBytes, bytes.count)
        guard client.queuedBytes + bytes.count <= queueBound else {
            disconnect(client)
            return
        }
        guard client.queuedBytes == 0 else {
            client.queue(bytes[...])
            return
        }
        defer { if client.queuedBytes > 0 { pollSetChanged = true } }
        // Nothing waiting: send straight from the shared bytes and keep only what the kernel did not take.
        let sent = try? bytes.withUnsafeBytes { raw throws(Errno) in try UnixSocket.sendNow(client.descriptor, raw) }
        guard let sent else {
            disconnect(client)
            return
        }
        if sent < bytes.count { client.queue(bytes[sent...]) }
    }

    private func send(_ message: JSON, to client: ClientConnection) {
        var bytes: [UInt8] = []
        message.encoded(into: &bytes)
        bytes.append(0x0A)
        send(bytes, to: client)
    }

    private func sendError(_ code: ErrorCode, _ detail: String, id: JSON, to client: ClientConnection) {
        send(ServerAnswer.error(code, detail, id: id), to: client)
    }

    // MARK: Connections

    private func acceptClients() {
        for _ in 0..<64 {
            let descriptor = accept(listenDescriptor, nil, nil)
            if descriptor < 0 {
                switch errno {
                case EAGAIN, EINTR, ECONNABORTED: break
                // Out of descriptors or memory: a level-triggered poll would spin, so listen again in 100 ms.
                default: acceptResumes = .now + .milliseconds(100)
                }
                return
            }
            do {
                try FileDescriptor.setNonBlocking(descriptor)
                try FileDescriptor.setCloseOnExec(descriptor)
            } catch {
                FileDescriptor.close(descriptor)
                continue
            }
            let client = ClientConnection(id: ClientID(rawValue: nextClientNumber), descriptor: descriptor)
            nextClientNumber += 1
            guard clients.count < configuration.maxClients else {
                sendError(.notAvailable, "too many clients", id: .null, to: client)
                FileDescriptor.close(descriptor)
                continue
            }
            clients[descriptor] = client
            wake.clientCount.store(clients.count, ordering: .relaxed)
            send(ServerAnswer.hello(delegate.helloFields()), to: client)
        }
    }

    private func disconnect(_ client: ClientConnection) {
        guard !client.isClosed else { return }
        client.isClosed = true
        FileDescriptor.close(client.descriptor)
        clients[client.descriptor] = nil
        pollSetChanged = true
        wake.clientCount.store(clients.count, ordering: .relaxed)
    }

    private func receive(from client: ClientConnection) {
        for _ in 0..<4 {
            let count = scratch.withUnsafeMutableBytes { raw in
                recv(client.descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT))
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN { disconnect(client) }
                return
            }
            if count == 0 {
                endReading(of: client)
                return
            }
            client.input.append(contentsOf: scratch[0..<count])
            handleLines(of: client)
            if client.isClosed || count < scratch.count { return }
        }
    }

    /// End of file: the client sent all it will, but it still gets every answer owed (the verdicts of its verifies
    /// included), so a verdict whose chip URL is already spent is not lost; then the connection closes.
    private func endReading(of client: ClientConnection) {
        if !client.input.isEmpty {
            client.input.append(0x0A)  // a last line without its newline still counts
            handleLines(of: client)
        }
        client.readingEnded = true
        client.input.removeAll()
        client.inputScanned = 0
        closeIfAnswered(client)
    }

    private func closeIfAnswered(_ client: ClientConnection) {
        if !client.isClosed && client.isAnswered { disconnect(client) }
    }

    private func handleLines(of client: ClientConnection) {
        var lineStart = 0
        while !client.isClosed, let newline = client.input[client.inputScanned...].firstIndex(of: 0x0A) {
            let line = client.input[lineStart..<newline]
            lineStart = newline + 1
            client.inputScanned = lineStart
            guard line.count <= ServerLoop.maximumLineBytes else {
                refuseLongLine(from: client)
                return
            }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            handle(line, from: client)
        }
        guard !client.isClosed else { return }
        client.input.removeSubrange(0..<lineStart)
        client.inputScanned = client.input.count
        if client.input.count > ServerLoop.maximumLineBytes { refuseLongLine(from: client) }
    }

    private func refuseLongLine(from client: ClientConnection) {
        sendError(.lineTooLong, "a line may hold at most 65536 bytes", id: .null, to: client)
        disconnect(client)
    }

    // MARK: Commands

    private func handle(_ line: ArraySlice<UInt8>, from client: ClientConnection) {
        let command: ClientCommand
        do {
            command = try ClientCommand.read(line)
        } catch {
            sendError(error.code, error.detail, id: error.id, to: client)
            return
        }
        switch command.action {
        case .watch(let types):
            client.watched = types
            send(ServerAnswer.ack(id: command.id), to: client)
        case .verify(let raw):
            client.answersOwed += 1
            delegate.verify(raw: raw, requestID: command.id == .null ? nil : command.id, from: client.id)
        case .status:
            send(statusAnswer(id: command.id), to: client)
        case .passport(let query):
            if let answer = delegate.passport(query, requestID: command.id, from: client.id) {
                send(answer, to: client)
            } else {
                client.answersOwed += 1
            }
        case .replay(let since):
            do {
                // Its batches come with the other replays' at the end of each turn (`continueReplays`).
                client.replay = ClientConnection.Replay(cursor: try journal.cursor(after: since), requestID: command.id)
            } catch {
                sendError(.notAvailable, "\(error)", id: command.id, to: client)
            }
        }
    }

    private func statusAnswer(id: JSON) -> JSON {
        var fields = delegate.statusFields()
        let clientsField = ("clients", JSON.int(Int64(clients.count)))
        if let lastSeqIndex = fields.firstIndex(where: { $0.0 == "last_seq" }) {
            fields.insert(clientsField, at: lastSeqIndex)
        } else {
            fields.append(clientsField)
        }
        return ServerAnswer.status(id: id, fields)
    }

    /// One batch to each replaying client whose queue has room, in turn, starting after the one the last turn ended
    /// with, until the turn's `replayBytesPerTurn` is spent: fair among replays, and bounded for the live path.
    private func continueReplays() {
        let waiting = clients.values.filter { $0.replay != nil && $0.queuedBytes < replayLowWater }
            .sorted { $0.id.rawValue < $1.id.rawValue }
        guard !waiting.isEmpty else { return }
        let first = waiting.firstIndex { $0.id.rawValue > lastReplayServed } ?? 0
        let share = max(4_096, min(replayLowWater / 2, ServerLoop.replayBytesPerTurn / waiting.count))
        var budget = ServerLoop.replayBytesPerTurn
        for client in waiting[first...] + waiting[..<first] where budget > 0 {
            budget -= continueReplay(client, maxBytes: share)
            lastReplayServed = client.id.rawValue
            closeIfAnswered(client)
        }
    }

    /// Sends a replaying client its next batch from the journal, about `maxBytes`, and returns the bytes sent;
    /// once caught up, it goes live from the last seq it was sent, so nothing is lost or doubled.
    private func continueReplay(_ client: ClientConnection, maxBytes: Int) -> Int {
        guard !client.isClosed, var replay = client.replay else { return 0 }
        do {
            let batch = try replay.cursor.next(maxBytes: maxBytes)
            if batch.isEmpty {
                client.liveThreshold = replay.cursor.position
                client.replay = nil
                // The seam: what follows is live (`replay --no-follow` stops here).
                send(ServerAnswer.ack(id: replay.requestID, replayed: replay.replayed), to: client)
                return 0
            }
            replay.replayed += batch.count
            client.replay = replay
            var sent = 0
            for event in batch {
                var bytes = Array(event.line.utf8)
                bytes.append(0x0A)
                sent += bytes.count
                send(bytes, to: client)
            }
            return sent
        } catch {
            client.liveThreshold = replay.cursor.position
            client.replay = nil
            sendError(.notAvailable, "\(error)", id: replay.requestID, to: client)
            return 0
        }
    }
}
