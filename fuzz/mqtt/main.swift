import Glibc
import JSONCore
@testable import MQTTBridge

/// sealtrust-mqtt's three readers of outside text, from the MQTTBridge module:
/// - `BrokerAddress`, the input as a `--url`: an address taken has a port in 1...65535 read from decimal digits
///   alone (or the scheme's default), a host of printable ASCII without white space, `/`, `@`, `[` or `]`, and its
///   description reads back as the same address; a refusal is a `UsageError` of one line without a control character.
/// - `AcknowledgedSeqFile`, the input as `<state-dir>/acked-seq`: a seq is read only from a file of at most 31 bytes,
///   decimal digits and one optional line end, and then it is that number, at most 2^63 - 1; any other file is a
///   `UsageError`. A seq saved reads back as itself.
/// - `ReplayRequest`, the input as a payload on `<prefix>/<station>/replay`: a request taken asks for seqs from 1 on,
///   at most `ReplayRequest.largestRange` of them when it has an end, and its first seq is at most 2^63; a refusal
///   is an answer whose payload is one line of JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    checkBrokerAddress(String(decoding: input, as: UTF8.self))
    checkSeqFile(input)
    checkReplayRequest(Array(input))
    return 0
}

func checkBrokerAddress(_ url: String) {
    let address: BrokerAddress
    do {
        address = try BrokerAddress(parsing: url)
    } catch {
        checkOneLine(error.message)
        return
    }
    check((1...65_535).contains(address.port), "port \(address.port) from \(url.debugDescription)")
    check(!address.host.isEmpty && address.host.utf8.allSatisfy { (0x21...0x7E).contains($0) && !"/@[]".utf8.contains($0) },
          "host \(address.host.debugDescription) from \(url.debugDescription)")
    let authority = url.drop { $0 != "/" }.dropFirst(2)
    let portText = authority.hasPrefix("[") ? authority.drop { $0 != "]" }.dropFirst().dropFirst() : authority.lastIndex(of: ":").map { authority[$0...].dropFirst() }
    if let portText, !portText.isEmpty {
        let digits = portText.hasSuffix("/") ? portText.dropLast() : portText
        check(digits.utf8.allSatisfy { (0x30...0x39).contains($0) }, "port \(address.port) read from \(url.debugDescription)")
    }
    let again = try? BrokerAddress(parsing: address.description)
    check(again == address, "\(url.debugDescription) reads as \(address.description), which reads back as \(String(describing: again))")
}

func checkSeqFile(_ input: UnsafeBufferPointer<UInt8>) {
    let file = AcknowledgedSeqFile(directory: stateDirectory)
    let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    check(descriptor >= 0 && (input.isEmpty || write(descriptor, input.baseAddress, input.count) == input.count), "cannot write \(file.path)")
    close(descriptor)
    let digits = input.last == 0x0A ? input.dropLast() : input[...]
    let expected = input.count < 32 && digits.allSatisfy { (0x30...0x39).contains($0) }
        ? UInt64(String(decoding: digits, as: UTF8.self)).flatMap { $0 <= AcknowledgedSeqFile.largestSeq ? $0 : nil } : nil
    do {
        let seq = try file.load()
        check(seq == expected, "acked-seq \(Array(input)) read as \(seq)")
    } catch {
        check(expected == nil, "acked-seq \(Array(input)) refused: \(error.message)")
        checkOneLine(error.message)
    }
    var seq: UInt64 = 0
    for byte in input.prefix(8) { seq = seq << 8 | UInt64(byte) }
    seq %= AcknowledgedSeqFile.largestSeq + 1
    check(file.save(seq) == nil, "cannot save to \(file.path)")
    check((try? file.load()) == seq, "saved \(seq), read back \(String(describing: try? file.load()))")
}

func checkReplayRequest(_ payload: [UInt8]) {
    do {
        let request = try ReplayRequest(payload: payload)
        check(request.first >= 1 && request.first <= AcknowledgedSeqFile.largestSeq + 1, "first seq \(request.first)")
        check(request.last >= request.first && request.size <= ReplayRequest.largestRange, "range \(request.first) to \(request.last)")
    } catch {
        let answer = ReplayAnswer.refused(error.reason).payload
        check(!answer.contains("\n"), "a line end in the answer \(answer.debugDescription)")
        check((try? JSON.parse(answer))?["error"]?.stringValue == error.reason, "the answer \(answer.debugDescription) does not read back")
    }
}

func checkOneLine(_ message: String) {
    check(!message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
          "a control character in the error: \(message.debugDescription)")
}

let stateDirectory: String = {
    let path = "/dev/shm/fuzz-mqtt-\(getpid())"
    mkdir(path, 0o700)
    atexit {
        unlink(stateDirectory + "/acked-seq")
        rmdir(stateDirectory)
    }
    return path
}()
