import DaemonConfiguration
import Foundation
import Testing
import TestSupport

/// What the configuration file's lines mean beyond `key = value`: a relative path is the file's folder's (under
/// systemd the working directory is /), and one pair of quotes around a value is not part of it.
@Suite struct ConfigurationFileTests {
    @Test func aRelativePathInTheFileIsTheFilesFolders() throws {
        let folder = try makeScratchDirectory()
        try #"{"en": {"not_sealtrust": "Not ours."}}"#.write(toFile: folder + "/texts.json", atomically: true, encoding: .utf8)
        let config = folder + "/scand.conf"
        try """
            journal = journal
            socket = run/scand.sock
            token-file = ./token
            texts = texts.json
            camera = y4m:streams/camera.y4m
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let read = try options(["--config", config])
        #expect(read.journalPath == folder + "/journal" && read.socketPath == folder + "/run/scand.sock")
        #expect(read.tokenFile == folder + "/./token" && read.textsFile == folder + "/texts.json")
        #expect(read.sentences.replacing(in: "en")[.notSealTrust] == "Not ours.", "the texts file beside it was read")
        #expect(read.cameras == [.y4m(folder + "/streams/camera.y4m")])
        // An absolute path stays as written; a flag's relative path is the working directory's, as any program's.
        try "journal = /var/lib/elsewhere\n".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try options(["--config", config]).journalPath == "/var/lib/elsewhere")
        #expect(try options(["--config", config, "--journal", "here"]).journalPath == "here")
    }

    @Test func onePairOfQuotesAroundAValueIsNotPartOfIt() throws {
        let config = try makeScratchDirectory() + "/scand.conf"
        try "station = \"dock 3\"\nlang = 'fr'\n".write(toFile: config, atomically: true, encoding: .utf8)
        let read = try options(["--config", config])
        #expect(read.station == "dock 3" && read.language == .fr)
        try "station = \"\"dock\"\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try options(["--config", config]).station == "\"dock\"", "one pair only")
        for line in ["station = \"dock 3", "station = dock 3'", "station = \"dock 3'"] {
            try (line + "\n").write(toFile: config, atomically: true, encoding: .utf8)
            #expect(problem(["--config", config])?.hasPrefix("\(config):1: a quote at one end of the value only") == true,
                    "\(line): \(problem(["--config", config]) ?? "accepted")")
        }
    }
}
