import Glibc
import POSIXSupport

/// Frames from a YUV4MPEG2 stream: a regular file (played once), a FIFO (opened again a
/// second after each writer leaves) or stdin (ends for good). Whatever the kind, every frame
/// is decoded and the stream is read at the pace the decoder takes: a writer faster than real
/// time is slowed by the pipe, never skipped, so a FIFO gives the scans the same file gives.
struct Y4MSource: FrameSource {
    let path: String
    /// Dates each frame's arrival.
    let now: @Sendable () -> ContinuousClock.Instant
    var id: String { "y4m:\(path)" }

    private static let pollInterval: Duration = .milliseconds(250)
    private static let reopenDelay: Duration = .seconds(1)
    private static let lineLimit = 4096

    private enum Kind {
        case regularFile, fifo, standardInput
    }

    func run(into target: some FrameSink) {
        let sink = RepeatLimitingSink(target)
        if path == "-" {
            play(descriptor: STDIN_FILENO, into: sink)
            return
        }
        var reportedAbsent = false
        var lastOpenFailure: String?
        while !sink.isStopped {
            var status = stat()
            guard stat(path, &status) == 0 else {
                if !reportedAbsent {
                    sink.report(.sourceAbsent(id: id))
                    reportedAbsent = true
                }
                lastOpenFailure = nil
                Self.sleep(Self.pollInterval, unless: sink)
                continue
            }
            reportedAbsent = false
            let kind: Kind = (status.st_mode & S_IFMT) == S_IFREG ? .regularFile : .fifo
            let flags = O_RDONLY | O_CLOEXEC | (kind == .fifo ? O_NONBLOCK : 0)
            let file: OwnedDescriptor
            do throws(Errno) {
                file = OwnedDescriptor(try FileDescriptor.open(path, flags))
            } catch {
                let failure = "cannot open: \(SystemCallError("open", errno: error))"
                if failure != lastOpenFailure {
                    sink.report(.sourceError(id: id, detail: failure))
                    lastOpenFailure = failure
                }
                Self.sleep(Self.reopenDelay, unless: sink)
                continue
            }
            lastOpenFailure = nil
            play(descriptor: file.rawValue, into: sink)
            _ = consume file
            if kind == .regularFile { return }
            Self.sleep(Self.reopenDelay, unless: sink)
        }
    }

    /// Reads one stream from its header to its end; `sourceRemoved` follows every `sourceReady`.
    private func play(descriptor: Int32, into sink: some FrameSink) {
        var reader = DescriptorReader(descriptor: descriptor, shouldStop: { sink.isStopped })
        do {
            let header: Y4MHeader
            switch try reader.readLine(limit: Self.lineLimit) {
            case .end(partial: 0):
                sink.report(.sourceError(id: id, detail: "bad header: empty stream"))
                return
            case .end(let partial):
                sink.report(.sourceError(id: id, detail: "bad header: the stream ends after \(partial) bytes, inside its header"))
                return
            case .tooLong:
                sink.report(.sourceError(id: id, detail: "bad header: no end of line in the first \(Self.lineLimit) bytes"))
                return
            case .line(let line):
                switch Y4MHeader.parse(line) {
                case .failure(let error):
                    sink.report(.sourceError(id: id, detail: "bad header: \(error.reason)"))
                    return
                case .success(let parsed):
                    header = parsed
                }
            }
            sink.report(.sourceReady(id: id, detail: header.summary))
            let removal = try playFrames(of: header, from: &reader, into: sink)
            sink.report(.sourceRemoved(id: id, detail: removal))
        } catch {
            // A stop ends the stream silently; a failed read is reported.
            if case .system(let failure) = error as? DescriptorReader.Failure {
                sink.report(.sourceError(id: id, detail: "read failed: \(failure)"))
            }
        }
    }

    /// Returns why the stream ended, for `sourceRemoved`; problems are reported as they are met.
    private func playFrames(of header: Y4MHeader, from reader: inout DescriptorReader, into sink: some FrameSink) throws -> String {
        // Neither plane is zeroed first: a frame costs memory as its bytes arrive, not as its header says.
        var chroma = [UInt8](unsafeUninitializedCapacity: header.chromaBytes ?? 0) { _, count in count = header.chromaBytes ?? 0 }
        var number = 0
        while true {
            switch try reader.readLine(limit: Self.lineLimit) {
            case .end(partial: 0):
                return "end of stream after \(number) frames"
            case .end, .tooLong:
                sink.report(.sourceError(id: id, detail: "truncated frame \(number): its FRAME header is cut short"))
                return "stream broken after \(number) frames"
            case .line(let line):
                guard line.starts(with: Array("FRAME".utf8)), line.count == 5 || line[5] == UInt8(ascii: " ") else {
                    let shown = String(decoding: line.prefix(16), as: UTF8.self)
                    sink.report(.sourceError(id: id, detail: "bad frame header at frame \(number): \"\(shown)\""))
                    return "stream broken after \(number) frames"
                }
            }
            var lumaRead = 0
            let luma = try [UInt8](unsafeUninitializedCapacity: header.lumaBytes) { bytes, count in
                lumaRead = try reader.read(into: UnsafeMutableRawBufferPointer(bytes))
                count = lumaRead
            }
            let chromaRead = lumaRead < header.lumaBytes ? 0 : try chroma.withUnsafeMutableBytes { bytes in try reader.read(into: bytes) }
            let frameBytes = header.lumaBytes + chroma.count
            guard lumaRead + chromaRead == frameBytes else {
                sink.report(.sourceError(id: id, detail: "truncated frame \(number): \(lumaRead + chromaRead) of \(frameBytes) bytes"))
                return "stream broken after \(number) frames"
            }
            let frame = Frame(width: header.width, height: header.height, luma: luma, time: header.time(ofFrame: number), arrivedAt: now())
            // Never live: the frame waits for the decoder, and the reader with it (only a camera drops frames).
            guard sink.deliver(frame, live: false) else { throw DescriptorReader.Failure.stopped }
            number += 1
        }
    }

    /// Waits `duration`, a slice at a time so a stop is not held up.
    static func sleep(_ duration: Duration, unless sink: some FrameSink) {
        OSThread.pause(for: duration, checkingEvery: .milliseconds(50)) { sink.isStopped }
    }
}
