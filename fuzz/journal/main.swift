import Glibc
@testable import ScanJournal

/// The first byte picks the segment's name (its first seq) and the cursor's batch size; the rest is
/// the segment file as the daemon finds it at start. Opening repairs or sets it aside, never traps;
/// a replay gives growing seqs, none beyond the last; the next append takes the next seq and reads back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let names: [UInt64] = [1, 2, 100, Journal.seqs.upperBound, Journal.seqs.upperBound + 1, UInt64.max]
    let firstSeq = names[Int(data[0] & 0x07) % names.count]
    let batchBytes = [64, 300, 4_096, 262_144][Int(data[0] >> 3) & 0x03]
    let segment = directory + "/" + SegmentFile.name(firstSeq: firstSeq)
    let descriptor = open(segment, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    check(descriptor >= 0, "cannot write \(segment)")
    check(size == 1 || write(descriptor, data + 1, size - 1) == size - 1)
    close(descriptor)
    defer { empty(directory) }

    guard let journal = try? Journal(path: directory, segmentBytes: 1 << 20) else { return 0 }
    check(journal.lastSeq < Journal.seqs.upperBound, "a last seq no JSON client holds exactly")
    var seen: [UInt64] = []
    if var cursor = try? journal.cursor(after: 0) {
        while let batch = try? cursor.next(maxBytes: batchBytes), !batch.isEmpty {
            seen += batch.map(\.seq)
        }
    }
    check(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "a replay's seqs must grow: \(seen)")
    check(seen.allSatisfy { $0 <= journal.lastSeq }, "a replayed seq beyond the last: \(seen)")
    let before = journal.lastSeq
    guard let appended = try? journal.append(type: "scan", fields: [("raw", "x")]) else { return 0 }
    check(appended.seq == before + 1, "append took seq \(appended.seq) after \(before)")
    let tail = (try? journal.events(after: before)) ?? []
    check(tail == [appended], "the appended event does not read back alone: \(tail)")
    journal.close()
    return 0
}

/// A fresh directory per fuzzing process, on tmpfs: the journal's fsyncs cost nothing there.
let directory: String = {
    let path = "/dev/shm/fuzz-journal-\(getpid())"
    mkdir(path, 0o700)
    atexit { empty(directory); rmdir(directory) }
    return path
}()

func empty(_ path: String) {
    guard let stream = opendir(path) else { return }
    defer { closedir(stream) }
    while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { unlink(path + "/" + name) }
    }
}
