import Foundation
import TestSupport
import Testing

/// `make install` into a scratch root: every file lands where the units, rules and configuration point,
/// and `make uninstall` takes back exactly that.
@Suite(.timeLimit(.minutes(1))) struct InstallTests {
    let root: ScratchDirectory
    let products = URL(fileURLWithPath: builtProduct("sealtrust-scand")).deletingLastPathComponent().path

    init() throws {
        root = try ScratchDirectory()
    }
    var stage: String { root.path + "/stage" }

    /// Only this part's make fragment: another's could start a nested `swift build`, which would wait forever
    /// for the build directory `swift test` holds.
    func make(_ target: String, _ variables: [String] = []) throws -> CommandResult {
        try runCommand("/usr/bin/make", ["--no-print-directory", "-f", "mk/system.mk", target, "DESTDIR=\(stage)", "PRODUCTS_DIR=\(products)"] + variables)
    }

    func installed(_ path: String) -> String { stage + path }

    @Test func everyFileLandsWhereTheUnitsAndRulesPointAndTheUnitsPassTheirChecks() throws {
        let install = try make("install-files")
        try #require(install.status == 0, "\(install.output)")

        let service = try UnitFile(path: installed("/usr/local/lib/systemd/system/sealtrust-scand.service"))
        let socket = try UnitFile(path: installed("/usr/local/lib/systemd/system/sealtrust-scand.socket"))

        let execStart = try #require(service.value("ExecStart", in: "Service"))
        #expect(execStart == "/usr/local/bin/sealtrust-scand")
        #expect(FileManager.default.isExecutableFile(atPath: installed(execStart)))
        #expect(FileManager.default.contentsEqual(atPath: installed(execStart), andPath: products + "/sealtrust-scand"))
        #expect(FileManager.default.isExecutableFile(atPath: installed("/usr/local/bin/sealtrust-scanctl")))

        // The user and its memberships (camera and serial scanners) come from the sysusers file. Not input: udev owns
        // that group, and a sysusers line would create it on a machine without udev, where a purge left it behind;
        // nor may the unit name it (a missing group stops the unit).
        let sysusers = try String(contentsOfFile: installed("/usr/local/lib/sysusers.d/sealtrust-scand.conf"), encoding: .utf8)
        let user = try #require(service.value("User", in: "Service"))
        #expect(sysusers.contains("\nu \(user) "))
        for group in ["video", "dialout"] { #expect(sysusers.contains("\nm \(user) \(group)\n")) }
        let lines = sysusers.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!lines.contains { $0.split(separator: " ").contains("input") }, "a sysusers line names input: \(lines)")
        #expect(service.value("SupplementaryGroups", in: "Service") == "video dialout")
        // Serial scanners on a CDC-ACM port and behind a USB-serial adapter (FTDI, PL2303).
        for device in ["char-input r", "char-ttyACM r", "char-ttyUSB r"] {
            #expect(service.values("DeviceAllow", in: "Service").contains(device), "DeviceAllow=\(device)")
        }
        #expect(socket.value("SocketUser", in: "Socket") == user)
        #expect(socket.value("SocketMode", in: "Socket") == "0660")

        // The socket lives in the service's runtime directory, and the daemon's defaults agree with both units.
        let runtime = try #require(service.value("RuntimeDirectory", in: "Service"))
        let listen = try #require(socket.value("ListenStream", in: "Socket"))
        #expect(listen == "/run/\(runtime)/scand.sock")
        #expect(socket.value("Service", in: "Socket").map { installed("/usr/local/lib/systemd/system/" + $0) }
            .map(FileManager.default.fileExists) == true)
        let configuration = try UnitFile(path: installed("/etc/sealtrust-scand/scand.conf"))
        #expect(configuration.value("socket") == listen)
        let state = try #require(service.value("StateDirectory", in: "Service"))
        #expect(configuration.value("journal") == "/var/lib/\(state)/journal")

        // The credential's source exists (LoadCredential= fails the unit otherwise) and only root reads it.
        let credential = try #require(service.value("LoadCredential", in: "Service"))
        #expect(credential.hasPrefix("sealtrust-token:"))
        let tokenPath = installed(String(credential.dropFirst("sealtrust-token:".count)))
        let tokenMode = try FileManager.default.attributesOfItem(atPath: tokenPath)[.posixPermissions] as? Int
        #expect(tokenMode == 0o600)

        // What udev asks systemd to start is the installed service.
        let rules = try String(contentsOfFile: installed("/etc/udev/rules.d/70-sealtrust-scand.rules"), encoding: .utf8)
        let wanted = Set(rules.matches(of: /ENV\{SYSTEMD_WANTS\}\+="([^"]+)"/).map { String($0.output.1) })
        #expect(wanted == ["sealtrust-scand.service"])
        #expect(FileManager.default.fileExists(atPath: installed("/etc/modprobe.d/sealtrust-scand-blacklist.conf")))
        #expect(FileManager.default.fileExists(atPath: installed("/etc/modules-load.d/sealtrust-scand.conf")))
        #expect(FileManager.default.fileExists(atPath: installed("/etc/polkit-1/rules.d/50-sealtrust-scand.rules")))
        #expect(service.value("Documentation", in: "Unit") == "man:sealtrust-scand(8)")
        #expect(FileManager.default.fileExists(atPath: installed("/usr/local/share/man/man8/sealtrust-scand.8")))
        #expect(FileManager.default.fileExists(atPath: installed("/usr/local/share/man/man1/sealtrust-scanctl.1")))

        // systemd-analyze verify accepts both installed units, and the exposure is 2.5 or less.
        let check = try runCommand(repositoryRoot().path + "/packaging/check-units.sh", [], environment: ["DESTDIR": stage])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("verify: sealtrust-scand.service sealtrust-scand.socket OK"))
        let exposure = try #require(check.output.firstMatch(of: /exposure: ([0-9.]+)/).flatMap { Double($0.output.1) })
        #expect(exposure <= 2.5)
        #expect(check.output.contains("verify: sealtrust-mqtt.service OK"))
    }

    /// The MQTT bridge installs with the rest: its unit starts the installed binary with the options file's
    /// flags, and both files its unit needs exist (the credentials empty, readable by root only).
    @Test func theMQTTBridgeInstallsWithItsUnitOptionsAndCredentials() throws {
        let install = try make("install-files", ["SYSCONFDIR=/usr/local/etc"])
        try #require(install.status == 0, "\(install.output)")
        let unit = try UnitFile(path: installed("/usr/local/lib/systemd/system/sealtrust-mqtt.service"))
        #expect(unit.value("ExecStart", in: "Service") == "/usr/local/bin/sealtrust-mqtt $SEALTRUST_MQTT_OPTIONS")
        #expect(FileManager.default.contentsEqual(atPath: installed("/usr/local/bin/sealtrust-mqtt"), andPath: products + "/sealtrust-mqtt"))
        let options = try #require(unit.value("EnvironmentFile", in: "Service"))
        #expect(options == "/usr/local/etc/sealtrust-mqtt/mqtt.conf")
        #expect(try String(contentsOfFile: installed(options), encoding: .utf8).contains("SEALTRUST_MQTT_OPTIONS=--url "))
        let credential = try #require(unit.value("LoadCredential", in: "Service"))
        #expect(credential == "sealtrust-mqtt:/usr/local/etc/sealtrust-mqtt/credentials")
        let credentials = installed("/usr/local/etc/sealtrust-mqtt/credentials")
        #expect(try FileManager.default.attributesOfItem(atPath: credentials)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: credentials)[.size] as? Int == 0)
        let sysusers = try String(contentsOfFile: installed("/usr/local/lib/sysusers.d/sealtrust-mqtt.conf"), encoding: .utf8)
        #expect(sysusers.contains("\nm sealtrust-mqtt sealtrust-scand\n"))
        #expect(FileManager.default.fileExists(atPath: installed("/usr/local/share/man/man8/sealtrust-mqtt.8")))
    }

    /// The kiosk bridge has an options file as the MQTT bridge does: its unit starts the installed binary with the
    /// file's flags, and the file, kept on a re-install, says how (`--listen`, `--lang`, `--texts`, `--theme`).
    @Test func theKioskBridgeInstallsWithItsOptionsFile() throws {
        let install = try make("install-files", ["SYSCONFDIR=/usr/local/etc"])
        try #require(install.status == 0, "\(install.output)")
        let unit = try UnitFile(path: installed("/usr/local/lib/systemd/system/sealtrust-kiosk.service"))
        #expect(unit.value("ExecStart", in: "Service") == "/usr/local/bin/sealtrust-kiosk $SEALTRUST_KIOSK_OPTIONS")
        let options = try #require(unit.value("EnvironmentFile", in: "Service"))
        #expect(options == "/usr/local/etc/sealtrust-kiosk/kiosk.conf")
        let example = try String(contentsOfFile: installed(options), encoding: .utf8)
        let assignment = try #require(example.split(separator: "\n").first { $0.hasPrefix("SEALTRUST_KIOSK_OPTIONS=") })
        // The example's options are the bridge's own defaults, and the bridge takes them.
        let flags = assignment.dropFirst("SEALTRUST_KIOSK_OPTIONS=".count).split(separator: " ").map(String.init)
        let help = try runCommand(products + "/sealtrust-kiosk", flags + ["--version"])
        #expect(help.status == 0 && !flags.isEmpty, "\(flags): \(help.output)")
        for flag in ["--listen", "--lang", "--texts", "--theme"] { #expect(example.contains(flag), "\(flag) is not explained") }

        try "SEALTRUST_KIOSK_OPTIONS=--lang fr\n".write(toFile: installed(options), atomically: true, encoding: .utf8)
        let again = try make("install-files", ["SYSCONFDIR=/usr/local/etc"])
        #expect(again.status == 0 && again.output.contains("kept /usr/local/etc/sealtrust-kiosk/kiosk.conf"), "\(again.output)")
        #expect(try String(contentsOfFile: installed(options), encoding: .utf8) == "SEALTRUST_KIOSK_OPTIONS=--lang fr\n")
    }

    /// What an operator gets right after `make install`: the installed binary starts on the example configuration,
    /// tells systemd it is ready, serves the hello, and stops cleanly on SIGTERM.
    @Test func theInstalledDaemonStartsWithTheExampleConfiguration() throws {
        let install = try make("install-files")
        try #require(install.status == 0, "\(install.output)")
        let socketPath = root.path + "/scand.sock"
        let notify = try NotifyListener(form: .path)
        let daemon = try ChildProcess(
            service: installed("/usr/local/bin/sealtrust-scand"),
            arguments: ["--config", installed("/etc/sealtrust-scand/scand.conf"), "--socket", socketPath,
                        "--journal", root.path + "/journal", "--nfc", "none", "--camera", "none"],
            notify: notify
        )
        let untilReady = notify.receive(until: "READY", timeout: .seconds(20))
        try #require(untilReady != nil, "no READY=1; stderr: \(daemon.standardError)")
        let hello = try #require(try connectAndReadLine(path: socketPath, timeout: .seconds(5)))
        #expect(hello.hasPrefix(#"{"type":"hello","protocol":1,"#))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: .seconds(20)) == 0)
        #expect(!FileManager.default.fileExists(atPath: socketPath))
    }

    @Test func theExecStartFollowsThePrefix() throws {
        let install = try make("install-files", ["PREFIX=/usr"])
        try #require(install.status == 0, "\(install.output)")
        let service = try UnitFile(path: installed("/usr/lib/systemd/system/sealtrust-scand.service"))
        #expect(service.value("ExecStart", in: "Service") == "/usr/bin/sealtrust-scand")
        #expect(service.values("ExecReload", in: "Service") == ["/usr/bin/sealtrust-scand --check-config", "/bin/kill -HUP $MAINPID"],
                "a reload checks the configuration first, so `systemctl reload` of a bad one fails")
        #expect(FileManager.default.isExecutableFile(atPath: installed("/usr/bin/sealtrust-scand")))
        let check = try runCommand(repositoryRoot().path + "/packaging/check-units.sh", [], environment: ["DESTDIR": stage, "PREFIX": "/usr"])
        #expect(check.status == 0, "\(check.output)")
    }

    @Test func aConfigurationDirectoryElsewhereIsNamedInTheUnit() throws {
        let install = try make("install-files", ["SYSCONFDIR=/usr/local/etc"])
        try #require(install.status == 0, "\(install.output)")
        let service = try UnitFile(path: installed("/usr/local/lib/systemd/system/sealtrust-scand.service"))
        #expect(service.value("ExecStart", in: "Service") == "/usr/local/bin/sealtrust-scand --config /usr/local/etc/sealtrust-scand/scand.conf")
        #expect(service.value("LoadCredential", in: "Service") == "sealtrust-token:/usr/local/etc/sealtrust-scand/token")
        #expect(service.values("ExecReload", in: "Service").first
                == "/usr/local/bin/sealtrust-scand --config /usr/local/etc/sealtrust-scand/scand.conf --check-config")
        #expect(FileManager.default.fileExists(atPath: installed("/usr/local/etc/sealtrust-scand/scand.conf")))
        #expect(FileManager.default.fileExists(atPath: installed("/usr/local/etc/sealtrust-scand/token")))
        let check = try runCommand(repositoryRoot().path + "/packaging/check-units.sh", [], environment: ["DESTDIR": stage])
        #expect(check.status == 0, "\(check.output)")
    }

    @Test func uninstallRemovesWhatInstallPutThereAndKeepsTheOperatorsChanges() throws {
        try #require(try make("install-files").status == 0)
        let configuration = installed("/etc/sealtrust-scand/scand.conf")
        try "camera = /dev/sealtrust-camera\n".write(toFile: configuration, atomically: false, encoding: .utf8)

        // A second install never overwrites the operator's configuration.
        let again = try make("install-files")
        #expect(again.output.contains("kept /etc/sealtrust-scand/scand.conf"))
        #expect(try String(contentsOfFile: configuration, encoding: .utf8) == "camera = /dev/sealtrust-camera\n")

        let uninstall = try make("uninstall")
        #expect(uninstall.status == 0, "\(uninstall.output)")
        #expect(uninstall.output.contains("kept /etc/sealtrust-scand/scand.conf (changed since install)"))
        let left = FileManager.default.enumerator(atPath: stage)?.compactMap { $0 as? String }
            .filter { !((try? FileManager.default.attributesOfItem(atPath: stage + "/" + $0)[.type] as? FileAttributeType) == .typeDirectory) }
        #expect(left == ["etc/sealtrust-scand/scand.conf"])
    }

    @Test func theCheckFailsAUnitWhoseHardeningIsGone() throws {
        try #require(try make("install-files").status == 0)
        let path = installed("/usr/local/lib/systemd/system/sealtrust-scand.service")
        let weakened = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .filter { !($0.hasPrefix("Protect") || $0.hasPrefix("Restrict") || $0.hasPrefix("SystemCall") || $0.hasPrefix("Capability")) }
            .joined(separator: "\n")
        try weakened.write(toFile: path, atomically: false, encoding: .utf8)
        let check = try runCommand(repositoryRoot().path + "/packaging/check-units.sh", [], environment: ["DESTDIR": stage])
        #expect(check.status != 0)
        #expect(check.output.contains("is above 2.5"))
    }

    /// With PREFIX=/usr, Debian's places: the vendor's files under /usr (udev, modprobe, modules-load, polkit,
    /// docs), and in /etc only what the operator owns, the configuration and the token.
    @Test func prefixUsrPutsEveryFileInDebiansPlaces() throws {
        let install = try make("install-files", ["PREFIX=/usr"])
        try #require(install.status == 0, "\(install.output)")
        let files = Set(FileManager.default.enumerator(atPath: stage)?.compactMap { $0 as? String }
            .filter { (try? FileManager.default.attributesOfItem(atPath: stage + "/" + $0)[.type] as? FileAttributeType) != .typeDirectory }
            .map { "/" + $0 } ?? [])
        #expect(files.filter { $0.hasPrefix("/etc/") }.sorted()
                == ["/etc/sealtrust-kiosk/kiosk.conf", "/etc/sealtrust-mqtt/credentials", "/etc/sealtrust-mqtt/mqtt.conf",
                    "/etc/sealtrust-scand/scand.conf", "/etc/sealtrust-scand/token"])
        for expected in ["/usr/lib/udev/rules.d/70-sealtrust-scand.rules", "/usr/lib/modprobe.d/sealtrust-scand-blacklist.conf",
                         "/usr/lib/modules-load.d/sealtrust-scand.conf", "/usr/share/polkit-1/rules.d/50-sealtrust-scand.rules",
                         "/usr/lib/sysusers.d/sealtrust-scand.conf", "/usr/lib/systemd/system/sealtrust-scand.service",
                         "/usr/share/doc/sealtrust-scand/scand.conf.example", "/usr/share/doc/sealtrust-scand/README.md",
                         "/usr/share/doc/sealtrust-scand/docs/scanners.md", "/usr/share/doc/sealtrust-scand/docs/daemon.md",
                         "/usr/share/man/man5/sealtrust-texts.5",
                         "/usr/share/man/man5/scand.conf.5", "/usr/share/man/man7/sealtrust-scand-protocol.7",
                         "/usr/bin/sealtrust-mqtt", "/usr/lib/systemd/system/sealtrust-mqtt.service", "/usr/lib/sysusers.d/sealtrust-mqtt.conf",
                         "/usr/share/man/man8/sealtrust-mqtt.8", "/usr/bin/sealtrust-kiosk", "/usr/share/man/man8/sealtrust-kiosk.8"] {
            #expect(files.contains(expected), "\(expected) is missing from \(files.sorted())")
        }
        #expect(files.allSatisfy { $0.hasPrefix("/usr/") || $0.hasPrefix("/etc/sealtrust-scand/") || $0.hasPrefix("/etc/sealtrust-mqtt/")
                                   || $0.hasPrefix("/etc/sealtrust-kiosk/") },
                "\(files.sorted())")
    }
}
