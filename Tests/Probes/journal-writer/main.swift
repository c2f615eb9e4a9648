import Foundation
import ScanJournal

/// Appends events to a journal as fast as it can and prints each acknowledged seq:
/// the crash test kills it with SIGKILL and checks every printed seq survived.
let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: journal-writer DIRECTORY\n".utf8))
    exit(2)
}
do {
    let journal = try Journal(path: arguments[1], segmentBytes: 16_384)
    while true {
        let event = try journal.append(type: "scan", fields: [("raw", .string(String(repeating: "x", count: 300)))])
        FileHandle.standardOutput.write(Data("\(event.seq)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("journal-writer: \(error)\n".utf8))
    exit(1)
}
