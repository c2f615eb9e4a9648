// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "sealtrust-scand",
    products: [
        .library(name: "SealTrustKit", targets: ["SealTrustKit"]),
        .executable(name: "sealtrust-scand", targets: ["sealtrust-scand"]),
        .executable(name: "sealtrust-scanctl", targets: ["sealtrust-scanctl"]),
        .executable(name: "sealtrust-kiosk", targets: ["sealtrust-kiosk"]),
        .library(name: "StationClient", targets: ["StationClient"]),
    ],
    targets: [
        // The parser and the API client: Foundation only.
        .target(name: "SealTrustKit"),

        // NFC: PC/SC readers through pcscd.
        // A C target rather than a system library: see Sources/CPCSCLite/include/CPCSCLite.h.
        .target(name: "CPCSCLite", linkerSettings: [.linkedLibrary("pcsclite")]),
        .target(name: "NFCReader", dependencies: ["CPCSCLite"]),
        // `make bench-nfc`: tap-to-URL latency beside bench/nfc/pcsc_read.c, on the virtual tag.
        .executableTarget(name: "nfc-bench", dependencies: ["NFCReader", "TestSupport"]),

        // QR: frames through libzbar.
        .systemLibrary(
            name: "CZBar",
            pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]
        ),
        .target(name: "QRScanner", dependencies: ["CZBar"]),
        // `make bench-qr`: the decoder's cost per frame beside libzbar's and zxing-cpp's loops.
        .executableTarget(name: "qr-bench", dependencies: ["QRScanner"]),

        // The daemon's parts.
        .target(name: "ScanJournal"),
        .target(name: "VerdictSocket", dependencies: ["ScanJournal"]),
        .target(name: "SystemdSupport"),
        // A stand-in service that drives SystemdSupport, for its tests.
        .executableTarget(name: "notify-probe", dependencies: ["SystemdSupport"]),
        .target(
            name: "ScanPipeline",
            dependencies: ["SealTrustKit", "NFCReader", "QRScanner", "ScanJournal", "VerdictSocket"]
        ),

        // Thin executables.
        .executableTarget(
            name: "sealtrust-scand",
            dependencies: ["ScanPipeline", "SystemdSupport"]
        ),
        .executableTarget(name: "sealtrust-scanctl", dependencies: ["ScanJournal"]),
        // A client of the daemon's socket for bridges: lines, commands, replay with reconnects.
        .target(name: "StationClient", dependencies: ["ScanJournal"]),
        .executableTarget(name: "socket-bench", dependencies: ["ScanJournal", "VerdictSocket"]),
        // Appends until killed: the journal's crash test runs it.
        .executableTarget(name: "journal-writer", dependencies: ["ScanJournal"]),

        // The kiosk bridge: the page, Server-Sent Events, metrics and health over libmicrohttpd (outputs.md).
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .target(name: "KioskBridge", dependencies: ["CMicroHTTPD", "ScanJournal", "StationClient"]),
        .executableTarget(name: "sealtrust-kiosk", dependencies: ["KioskBridge"]),

        // `make bench-daemon`: the daemon's latency, memory and start time (mk/daemon.mk).
        .executableTarget(name: "scand-bench", dependencies: ["ScanJournal", "SealTrustKit", "TestSupport"]),

        // Tests and what they share: launchers for the sandbox API and the virtual tag.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "SealTrustKitTests", dependencies: ["SealTrustKit", "TestSupport"]),
        .testTarget(name: "NFCReaderTests", dependencies: ["NFCReader", "TestSupport"]),
        .testTarget(name: "QRScannerTests", dependencies: ["QRScanner", "CZBar", "TestSupport"]),
        .target(name: "SystemdTestSupport", dependencies: ["TestSupport"], path: "Tests/SystemdTestSupport"),
        .testTarget(name: "SystemdSupportTests", dependencies: ["SystemdSupport", "SystemdTestSupport", "TestSupport", "notify-probe"]),
        .testTarget(name: "ScanJournalTests", dependencies: ["ScanJournal", "TestSupport"]),
        .testTarget(name: "VerdictSocketTests", dependencies: ["VerdictSocket", "ScanJournal", "TestSupport"]),
        .target(name: "BridgeTestSupport", dependencies: ["TestSupport", "SystemdTestSupport"], path: "Tests/BridgeTestSupport"),
        .testTarget(name: "StationClientTests", dependencies: ["StationClient", "BridgeTestSupport", "sealtrust-scand"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: ["ScanPipeline", "ScanJournal", "SealTrustKit", "TestSupport", "SystemdTestSupport", "sealtrust-scand"]
        ),
        // The kiosk bridge's tests and benchmark drive headless Chromium through the DevTools protocol.
        .target(
            name: "KioskTestSupport",
            dependencies: ["ScanJournal", "StationClient", "TestSupport", "SystemdTestSupport"],
            path: "Tests/KioskTestSupport"
        ),
        // `make bench-kiosk`: from a verdict to the page showing it, through the DevTools protocol (mk/kiosk.mk).
        .executableTarget(
            name: "kiosk-bench",
            dependencies: ["KioskTestSupport", "ScanJournal", "StationClient"],
            path: "bench/kiosk"
        ),
        .testTarget(
            name: "KioskTests",
            dependencies: ["KioskBridge", "KioskTestSupport", "ScanJournal", "StationClient", "sealtrust-kiosk", "sealtrust-scand"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
