import JSONCore
import StationWire

/// A client's line as the verdict server reads it: any bytes give a command or a refusal, never a trap.
/// A command prints as a line that reads back as the same command (the client's side of the wire);
/// a `verify` hands on its `raw` exactly as the line's JSON string holds it; every answer's `id`
/// prints as JSON that reads back; a `passport` names its product within the protocol's bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let line = UnsafeBufferPointer(start: data, count: size)
    let id: JSON
    do {
        let command = try ClientCommand.read(line)
        id = command.id
        let printed = command.json.encoded()
        // The print is a fixed point (a number id may change form, 1.0 printing as 1, never value).
        let reread = try? ClientCommand.read(Array(printed.utf8))
        check(reread?.json.encoded() == printed && reread?.action == command.action, "a command does not read back from its print: \(printed)")
        if case .verify(let raw) = command.action {
            let said = try? JSON.parse(utf8: line)["raw"]?.stringValue
            check(said.map { Array($0.utf8) } == Array(raw.utf8), "verify changed the scanned string")
        }
        if case .passport(let query) = command.action {
            check(!query.parts.isEmpty, "a passport asks for no part")
            switch query.subject {
            case .scan(let id): check((1...PassportQuery.maxScanIDBytes).contains(id.utf8.count), "a scan_id out of bounds")
            case .identifier(let identifier):
                check((1...PassportQuery.maxIdentifierBytes).contains(identifier.utf8.count)
                      && !identifier.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "an identifier out of bounds")
            case .gtin(let gtin):
                check([8, 12, 13, 14].contains(gtin.utf8.count) && gtin.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && query.tier == nil,
                      "a gtin that is not one")
            }
        }
    } catch {
        id = error.id
        check(!error.detail.isEmpty, "a refusal must say why")
    }
    let answer = JSON.object([("type", "ack"), ("id", id)]).encoded()
    check((try? JSON.parse(answer)) != nil, "the answer's id does not print as JSON: \(answer)")
    return 0
}
