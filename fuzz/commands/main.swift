import ScanJournal
@testable import VerdictSocket

/// A client's line as the verdict server reads it: any bytes give a command or a refusal, never a crash.
/// A `verify` hands on its `raw` exactly as the line's JSON string holds it, and every answer's `id`
/// prints as JSON that reads back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let line = Array(UnsafeBufferPointer(start: data, count: size))
    let id: JSON
    do {
        let command = try ClientCommand.read(line[...])
        id = command.id
        if case .verify(let raw, _) = command.action {
            let said = try? JSON.parse(utf8: line)["raw"]?.stringValue
            check(said.map { Array($0.utf8) } == Array(raw.utf8), "verify changed the scanned string")
        }
    } catch {
        id = error.id
        check(!error.detail.isEmpty && !error.code.isEmpty, "a refusal must say why")
    }
    let answer = JSON.object([("type", "ack"), ("id", id)]).encoded()
    check((try? JSON.parse(answer)) != nil, "the answer's id does not print as JSON: \(answer)")
    return 0
}

/// A broken property stops the fuzzer with what broke (a precondition's message is lost in -O builds).
func check(_ condition: Bool, _ message: @autoclosure () -> String = "") {
    if !condition { fatalError(message()) }
}
