import Foundation
import Glibc
import JSONCore
import Testing
import TestSupport

/// `--api-ca`: CA certificates trusted for the API in addition to the system's store, read by the daemon itself at
/// start and on SIGHUP. The API is the sandbox behind a TLS end for `localhost` whose CA is made for the test.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct CABundleTests {
    private struct TLSAPI {
        let api: SandboxAPI
        let tlsEnd: NetLabPart
        let certificates: ScratchDirectory
        var base: String { "https://localhost:\(tlsEnd.port)" }
        var ca: String { certificates.path + "/ca.pem" }
    }

    private func withTLSAPI(_ body: (TLSAPI) async throws -> Void) async throws {
        let certificates = try ScratchDirectory("sealtrust-ca-certs")
        let api = try SandboxAPI.start()
        defer { api.stop() }
        let tlsEnd = try NetLabPart.start(["tls", "--certs", certificates.path, "--kind", "good", "--upstream", "127.0.0.1:\(api.port)"])
        defer { tlsEnd.stop() }
        try await body(TLSAPI(api: api, tlsEnd: tlsEnd, certificates: certificates))
    }

    /// A FIFO named by mistake held the first call for ever (libcurl opened it and waited for a writer), and every call
    /// after it: now each call fails at once with the file named, the log says why, and a reload after the mend works.
    @Test func aCABundleNamedByMistakeFailsEachCallAtOnceAndAReloadAfterTheMendVerifies() async throws {
        try await withTLSAPI { tls in
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let bundle = directory + "/ca.pem"
            #expect(mkfifo(bundle, 0o600) == 0)
            let daemon = try ScanDaemon(api: nil, extra: ["--api-base", tls.base, "--api-ca", bundle]).waitUntilListening()
            defer { _ = daemon.terminate(); daemon.removeDirectory() }
            let (client, _) = try daemon.connect()

            for counter in [10, 11] {
                let verdict = try client.verify(try mintChipURL("authentic", counter: counter), id: "fifo-\(counter)").verdict
                #expect(verdict["outcome"]?.string == "failure" && verdict["error"]?["cause"]?.string == "tls"
                        && verdict["error"]?["detail"]?.string == "TLS: cannot read the CA file \(bundle)", "\(verdict.encoded())")
            }
            #expect(try await tls.api.requests().isEmpty, "a call went out with no CA to check the API by")
            #expect(daemon.process.standardError.contains("the CA bundle \(bundle) is not a regular file"), "\(daemon.process.standardError)")

            try FileManager.default.removeItem(atPath: bundle)
            try FileManager.default.copyItem(atPath: tls.ca, toPath: bundle)
            daemon.process.signal(SIGHUP)
            try daemon.waitForLog("configuration reloaded")
            let mended = try client.verify(try mintChipURL("authentic", counter: 12), id: "mended").verdict
            #expect(mended["outcome"]?.string == "authentic", "\(mended.encoded())")
        }
    }

    /// A bundle that holds no certificate (emptied, or a file named by mistake) is refused by a reload, naming it, and
    /// the running bundle stays: the API is still trusted. Before, the reload said "configuration reloaded" and every
    /// call then failed "TLS: cannot read the CA file".
    @Test func aReloadToABundleWithNoCertificateIsRefusedAndTheRunningOneStays() async throws {
        try await withTLSAPI { tls in
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let bundle = directory + "/ca.pem"
            try FileManager.default.copyItem(atPath: tls.ca, toPath: bundle)
            let daemon = try ScanDaemon(api: nil, extra: ["--api-base", tls.base, "--api-ca", bundle]).waitUntilListening()
            defer { _ = daemon.terminate(); daemon.removeDirectory() }
            let (client, _) = try daemon.connect()

            for (counter, content) in [(30, ""), (31, try String(contentsOfFile: "/etc/passwd", encoding: .utf8))] {
                try content.write(toFile: bundle, atomically: false, encoding: .utf8)
                let refusals = daemon.process.standardError.components(separatedBy: "configuration not reloaded").count
                daemon.process.signal(SIGHUP)
                try daemon.waitForLog("configuration not reloaded", count: refusals)
                #expect(daemon.process.standardError.contains("the CA bundle \(bundle) holds no PEM certificate that parses"))
                let verdict = try client.verify(try mintChipURL("authentic", counter: counter), id: "kept-\(counter)").verdict
                #expect(verdict["outcome"]?.string == "authentic", "\(verdict.encoded())")
            }
            #expect(!daemon.process.standardError.contains("configuration reloaded"), "\(daemon.process.standardError)")
        }
    }

    /// The spec's "in addition to the system's": with `--api-ca` naming another CA, the system's store still vouches for
    /// the API. The daemon runs in a mount namespace of its own whose /etc/ssl/certs holds the TLS end's CA alone (the
    /// machine's store is never touched); without that store, the same daemon cannot trust the API.
    @Test func theCABundleIsTrustedInAdditionToTheSystemsStore() async throws {
        try await withTLSAPI { tls in
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let other = directory + "/other-ca.pem"
            try runTool("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                             "-keyout", directory + "/other-ca.key", "-out", other, "-days", "2", "-subj", "/CN=another CA"])
            let store = directory + "/store"
            try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: tls.ca, toPath: store + "/test-ca.pem")
            try runTool("/usr/bin/openssl", ["rehash", store])
            let bind = #"mount --bind "$1" /etc/ssl/certs && shift && exec "$@""#

            for (withStore, expected) in [(true, "authentic"), (false, "failure")] {
                let launcher = withStore ? PrivateMounts.unshare + ["/bin/sh", "-c", bind, "sh", store] : []
                let daemon = try ScanDaemon(api: nil, extra: ["--api-base", tls.base, "--api-ca", other], launcher: launcher)
                    .waitUntilListening()
                defer { _ = daemon.terminate(); daemon.removeDirectory() }
                let (client, _) = try daemon.connect()
                let counter = withStore ? 20 : 21
                let verdict = try client.verify(try mintChipURL("authentic", counter: counter), id: "store-\(withStore)").verdict
                #expect(verdict["outcome"]?.string == expected, "with the store holding the CA: \(withStore): \(verdict.encoded())")
            }
            #expect(!FileManager.default.fileExists(atPath: "/etc/ssl/certs/test-ca.pem"), "the machine's store was changed")
        }
    }
}

