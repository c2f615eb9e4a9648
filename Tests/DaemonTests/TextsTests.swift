import Foundation
import Glibc
import JSONCore
import TestSupport
import Testing

/// `--texts`: the daemon's sentences replaced by id, and a file that names an id that does not exist refused.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct TextsTests {
    func textsFile(_ text: String) throws -> String {
        let path = try makeScratchDirectory() + "/texts.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: ["en", "fr"])
    func aReplacedSentenceIsTheEventsMessage(language: String) throws {
        let texts = try textsFile(#"{"en": {"not_sealtrust": "Not ours, sorry."}, "fr": {"not_sealtrust": "Pas à nous, désolé."}}"#)
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let daemon = try ScanDaemon(api: api, extra: ["--lang", language, "--texts", texts]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let client = try LineClient(path: daemon.socketPath)
        let replaced = try client.verify("plain text", id: "t").verdict
        #expect(replaced["message"] == (language == "en" ? "Not ours, sorry." : "Pas à nous, désolé."))
        let kept = try client.verify("https://sealtrust.io/p/SN-00042", id: "k").verdict
        #expect(kept["message"]?.string?.hasPrefix(language == "en" ? "Printed code" : "Code imprimé") == true, "the rest keep theirs")
    }

    /// SIGHUP reads the file again; a bad one is refused by its id and the running sentences stay.
    @Test func aReloadReadsTheFileAgain() throws {
        let texts = try textsFile(#"{"en": {"not_sealtrust": "Not ours, sorry."}}"#)
        let daemon = try ScanDaemon(api: nil, extra: ["--texts", texts]).waitUntilListening()
        defer { _ = daemon.terminate(); daemon.removeDirectory() }
        let (client, _) = try daemon.connect()
        #expect(try client.verify("plain text", id: "before").verdict["message"] == "Not ours, sorry.")

        try #"{"en": {"not_sealtrust": "Still not ours."}}"#.write(toFile: texts, atomically: true, encoding: .utf8)
        daemon.process.signal(SIGHUP)
        try daemon.waitForLog("configuration reloaded")
        #expect(try client.verify("plain text", id: "after").verdict["message"] == "Still not ours.")

        try #"{"en": {"not_sealtrust": "Mistyped.", "not_sealtrsut": "Mistyped."}}"#.write(toFile: texts, atomically: true, encoding: .utf8)
        daemon.process.signal(SIGHUP)
        try daemon.waitForLog("configuration not reloaded")
        #expect(daemon.process.standardError.contains("unknown sentence id \"not_sealtrsut\""), "\(daemon.process.standardError)")
        #expect(try client.verify("plain text", id: "kept").verdict["message"] == "Still not ours.")
    }

    @Test func anUnknownIdIsRefusedWithItsNameAtStartAndByCheckConfig() throws {
        let texts = try textsFile(#"{"en": {"authentic": "Genuine.", "authentik": "Typo."}}"#)
        for arguments in [["--texts", texts, "--nfc", "none", "--camera", "none"], ["--texts", texts, "--check-config"]] {
            let process = try ChildProcess(service: builtProduct("sealtrust-scand"), arguments: arguments)
            #expect(process.waitForExit(timeout: .seconds(20)) == 2, "\(arguments)")
            #expect(process.standardError.contains("unknown sentence id \"authentik\"") && process.standardError.contains(texts),
                    "\(process.standardError)")
        }
        let control = try textsFile("{\"fr\": {\"authentic\": \"Authentique\\u001b[2J\"}}")
        let refused = try ChildProcess(service: builtProduct("sealtrust-scand"), arguments: ["--texts", control, "--check-config"])
        #expect(refused.waitForExit(timeout: .seconds(20)) == 2 && refused.standardError.contains("fr.authentic holds a control character"))
    }
}
