import Glibc
@testable import QRScanner
import Synchronization

/// What a Y4M stream gave: frames and reports, checked as they come.
final class CheckingSink: FrameSink {
    private struct State {
        var frames = 0
        var lastTime: Duration = .zero
        var ready = 0
        var removed = 0
    }
    private let state = Mutex(State())

    func deliver(_ frame: Frame, live: Bool) -> Bool {
        check((1...Y4MHeader.maximumSide).contains(frame.width) && (1...Y4MHeader.maximumSide).contains(frame.height))
        check(frame.luma.count == frame.width * frame.height, "a frame's Y plane is not width x height")
        state.withLock { state in
            check(frame.time >= state.lastTime, "the stream clock went backwards")
            state.lastTime = frame.time
            state.frames += 1
        }
        return true
    }

    func report(_ event: QREvent) {
        state.withLock { state in
            switch event {
            case .sourceReady: state.ready += 1
            case .sourceRemoved: state.removed += 1
            default: break
            }
        }
    }

    var isStopped: Bool { false }

    func checkEnd() {
        state.withLock { state in
            check(state.ready == state.removed, "a source was ready and never removed")
            check(state.frames == 0 || state.ready == 1, "frames without a ready source")
        }
    }
}

/// The whole input is a Y4M file: header, frame headers, frames. It plays to its end or stops at a
/// source error, never traps; frames are as large as their header says and no larger than the limit
/// (`-malloc_limit_mb` in options), and the stream's clock never goes back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    if !removesStreamAtExit {
        atexit { unlink(streamPath) }
        removesStreamAtExit = true
    }
    let descriptor = open(streamPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    check(descriptor >= 0, "cannot write \(streamPath)")
    var written = 0
    while written < size {
        let result = write(descriptor, data + written, size - written)
        check(result > 0)
        written += result
    }
    close(descriptor)
    let sink = CheckingSink()
    Y4MSource(path: streamPath, now: { .now }).run(into: sink)
    sink.checkEnd()
    return 0
}

/// One file per fuzzing process, rewritten for each input: the source reads a path, as the daemon's does.
let streamPath = "/dev/shm/fuzz-y4m-\(getpid()).y4m"
nonisolated(unsafe) var removesStreamAtExit = false
