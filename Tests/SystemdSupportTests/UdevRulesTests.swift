import Foundation
import TestSupport
import Testing

/// udev 252 has no `udevadm verify`: the rules are checked here against udev's own grammar
/// (rules(7): comma-separated KEY[{attribute}] OPERATOR "value"), the commented camera example included.
@Suite(.timeLimit(.minutes(1))) struct UdevRulesTests {
    static let matchKeys: Set<String> = ["ACTION", "DEVPATH", "KERNEL", "KERNELS", "NAME", "SYMLINK", "SUBSYSTEM",
        "SUBSYSTEMS", "DRIVER", "DRIVERS", "ATTR", "ATTRS", "SYSCTL", "ENV", "CONST", "TAG", "TAGS", "TEST", "PROGRAM", "RESULT"]
    static let assignKeys: Set<String> = ["NAME", "SYMLINK", "OWNER", "GROUP", "MODE", "SECLABEL", "ATTR", "SYSCTL", "ENV",
        "TAG", "RUN", "LABEL", "GOTO", "IMPORT", "OPTIONS", "PROGRAM"]
    static let keysWithAttribute: Set<String> = ["ATTR", "ATTRS", "SYSCTL", "ENV", "CONST", "SECLABEL", "IMPORT"]

    struct Assignment: Equatable { let key: String; let attribute: String?; let operation: String; let value: String }

    static func parse(_ rule: Substring) throws -> [Assignment] {
        let pattern = /\s*([A-Z]+)(?:\{([^}]*)\})?(==|!=|\+=|-=|:=|=)"((?:[^"\\]|\\.)*)"\s*(,|$)/
        var rest = rule
        var result: [Assignment] = []
        while !rest.isEmpty {
            guard let match = rest.prefixMatch(of: pattern) else { throw RuleError(text: String(rest)) }
            let (_, key, attribute, operation, value, _) = match.output
            result.append(Assignment(key: String(key), attribute: attribute.map(String.init), operation: String(operation), value: String(value)))
            rest = rest[match.range.upperBound...]
        }
        return result
    }

    struct RuleError: Error, CustomStringConvertible {
        let text: String
        var description: String { "not a udev key/value pair: \(text)" }
    }

    let rules: String

    init() throws {
        rules = try String(contentsOfFile: repositoryRoot().path + "/udev/70-sealtrust-scand.rules", encoding: .utf8)
    }

    /// The rule lines, and the commented-out example made live, since an operator will uncomment it.
    var ruleLines: [Substring] {
        rules.split(separator: "\n").compactMap { line in
            if line.hasPrefix("#SUBSYSTEM") { return line.dropFirst() }
            return line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) ? nil : line
        }
    }

    @Test func everyRuleIsWellFormed() throws {
        var labels: Set<String> = []
        var gotos: Set<String> = []
        for line in ruleLines {
            let pairs = try Self.parse(line)
            for pair in pairs {
                let matching = pair.operation == "==" || pair.operation == "!="
                #expect(matching ? Self.matchKeys.contains(pair.key) : Self.assignKeys.contains(pair.key), "\(pair.key)\(pair.operation) in \(line)")
                if Self.keysWithAttribute.contains(pair.key) { #expect(pair.attribute?.isEmpty == false, "\(pair.key) needs {attribute}") }
                if pair.key == "LABEL" { labels.insert(pair.value) }
                if pair.key == "GOTO" { gotos.insert(pair.value) }
                if pair.key == "MODE" { #expect(pair.value.wholeMatch(of: /0[0-7]{3}/) != nil) }
            }
        }
        #expect(gotos.isSubset(of: labels))
    }

    @Test func captureNodesStartTheServiceAndTheCameraGoesToVideo() throws {
        let parsed = try ruleLines.map { try Self.parse($0) }
        let camera = try #require(parsed.first { $0.contains(Assignment(key: "SUBSYSTEM", attribute: nil, operation: "==", value: "video4linux")) })
        #expect(camera.contains(Assignment(key: "TAG", attribute: nil, operation: "+=", value: "systemd")))
        #expect(camera.contains(Assignment(key: "ENV", attribute: "SYSTEMD_WANTS", operation: "+=", value: "sealtrust-scand.service")))
        #expect(camera.contains(Assignment(key: "ATTR", attribute: "index", operation: "==", value: "0")))
        #expect(camera.contains(Assignment(key: "GROUP", attribute: nil, operation: "=", value: "video")))
        #expect(camera.contains(Assignment(key: "MODE", attribute: nil, operation: "=", value: "0660")))
        let example = try #require(parsed.first { $0.contains { $0.key == "SYMLINK" } })
        #expect(example.contains(Assignment(key: "SYMLINK", attribute: nil, operation: "+=", value: "sealtrust-camera")))
    }

    @Test func theScannerExamplesGiveTheDeviceToTheDaemonAndStartIt() throws {
        let parsed = try ruleLines.map { try Self.parse($0) }
        let scanners = parsed.filter { $0.contains { $0.key == "SYMLINK" && $0.value.hasPrefix("sealtrust-scanner") } }
        #expect(scanners.count == 3)
        // A serial scanner is a CDC-ACM port (ttyACM) or sits behind a USB-serial adapter (ttyUSB: FTDI, PL2303);
        // the unit lets the daemon open both.
        let kernels = scanners.compactMap { $0.first { $0.key == "KERNEL" }?.value }
        #expect(kernels == ["event*", "ttyACM[0-9]*", "ttyUSB[0-9]*"])
        let service = try UnitFile(path: repositoryRoot().path + "/systemd/sealtrust-scand.service")
        for device in ["char-ttyACM r", "char-ttyUSB r"] { #expect(service.values("DeviceAllow", in: "Service").contains(device)) }
        for (rule, (subsystem, group)) in zip(scanners, [("input", "input"), ("tty", "dialout"), ("tty", "dialout")]) {
            #expect(rule.contains(Assignment(key: "SUBSYSTEM", attribute: nil, operation: "==", value: subsystem)))
            #expect(rule.contains { $0.key == "ENV" && $0.attribute == "ID_VENDOR_ID" && $0.operation == "==" })
            #expect(rule.contains { $0.key == "ENV" && $0.attribute == "ID_MODEL_ID" && $0.operation == "==" })
            #expect(rule.contains(Assignment(key: "OWNER", attribute: nil, operation: "=", value: "sealtrust-scand")))
            #expect(rule.contains(Assignment(key: "GROUP", attribute: nil, operation: "=", value: group)))
            #expect(rule.contains(Assignment(key: "TAG", attribute: nil, operation: "+=", value: "systemd")))
            #expect(rule.contains(Assignment(key: "ENV", attribute: "SYSTEMD_WANTS", operation: "+=", value: "sealtrust-scand.service")))
        }
    }

    /// systemd's 99-systemd.rules pulls in smartcard.target for every ID_SMARTCARD_READER device: the service is
    /// wanted by that target, and no rule of ours repeats systemd's.
    @Test func aReaderStartsTheServiceThroughSmartcardTarget() throws {
        let service = try UnitFile(path: repositoryRoot().path + "/systemd/sealtrust-scand.service")
        let wantedBy = try #require(service.value("WantedBy", in: "Install")).split(separator: " ")
        #expect(wantedBy.contains("smartcard.target") && wantedBy.contains("multi-user.target"))
        let parsed = try ruleLines.map { try Self.parse($0) }
        #expect(!parsed.contains { $0.contains { $0.attribute == "ID_SMARTCARD_READER" } })
        let systemdRules = try String(contentsOfFile: "/usr/lib/udev/rules.d/99-systemd.rules", encoding: .utf8)
        #expect(systemdRules.contains(#"ENV{ID_SMARTCARD_READER}=="?*", TAG+="systemd", ENV{SYSTEMD_WANTS}+="smartcard.target""#))
    }

    @Test func theKernelNFCDriversAreKeptAwayFromTheReaders() throws {
        let blacklist = try String(contentsOfFile: repositoryRoot().path + "/packaging/modprobe.d/sealtrust-scand-blacklist.conf", encoding: .utf8)
        var modules: Set<String> = []
        for line in blacklist.split(separator: "\n") where !line.hasPrefix("#") {
            let words = line.split(separator: " ")
            if words.count == 2 && words[0] == "blacklist" { modules.insert(String(words[1])) }
        }
        #expect(modules == ["pn533_usb", "pn533", "nfc"])
    }
}
