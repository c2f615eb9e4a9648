import Foundation
import TestSupport

/// Checks a chip URL's SUN message with the sandbox catalogue's keys (tools/vtag/chips.py): AES-CMAC for real.
enum SUNCheck {
    struct Verified: Equatable {
        let chip: String
        let counter: Int
    }

    static func verify(_ url: String) throws -> Verified {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path, "verify", url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = Dictionary(text.split(whereSeparator: \.isWhitespace).dropFirst().compactMap { field -> (String, String)? in
            let parts = field.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
        guard process.terminationStatus == 0, text.hasPrefix("AUTHENTIC"), let chip = fields["chip"],
              let counter = fields["ctr"].flatMap({ Int($0) }) else {
            throw MonitorTestFailure("SUN message of \(url) does not verify: \(text)")
        }
        return Verified(chip: chip, counter: counter)
    }

    private static var script: URL {
        repositoryRoot().appendingPathComponent("tools/vtag/chips.py")
    }
}
