// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "sealtrust-scand",
    products: [
        .library(name: "SealTrustKit", targets: ["SealTrustKit"]),
        .executable(name: "sealtrust-scand", targets: ["sealtrust-scand"]),
        .executable(name: "sealtrust-scanctl", targets: ["sealtrust-scanctl"]),
    ],
    targets: [
        // Thin typed calls over the system: errno as a value, Unix socket addresses, descriptors, named threads.
        .target(name: "POSIXSupport"),
        // The one JSON value type, its parser and its writer, for API bodies, events and commands alike.
        .target(name: "JSONCore"),
        // Protocol 1's words: typed events, commands and answers, and the one-line event formatter.
        .target(name: "StationWire", dependencies: ["JSONCore"]),

        // The parser and the API client: Foundation and the JSON target only.
        .target(name: "SealTrustKit", dependencies: ["JSONCore"]),

        // NFC: PC/SC readers through pcscd.
        // A C target rather than a system library: see Sources/CPCSCLite/include/CPCSCLite.h.
        .target(name: "CPCSCLite", linkerSettings: [.linkedLibrary("pcsclite")]),
        .target(name: "NFCReader", dependencies: ["CPCSCLite", "POSIXSupport"]),
        // `make bench-nfc`: tap-to-URL latency beside bench/nfc/pcsc_read.c, on the virtual tag.
        .executableTarget(name: "nfc-bench", dependencies: ["NFCReader", "TestSupport"]),

        // QR: frames through libzbar.
        .systemLibrary(
            name: "CZBar",
            pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]
        ),
        .target(name: "QRScanner", dependencies: ["CZBar", "POSIXSupport"]),
        // `make bench-qr`: the decoder's cost per frame beside libzbar's and zxing-cpp's loops.
        .executableTarget(name: "qr-bench", dependencies: ["QRScanner"]),

        // The daemon's parts.
        .target(name: "ScanJournal", dependencies: ["JSONCore"]),
        .target(name: "VerdictSocket", dependencies: ["ScanJournal", "StationWire", "POSIXSupport"]),
        .target(name: "SystemdSupport", dependencies: ["POSIXSupport"]),
        // A stand-in service that drives SystemdSupport, for its tests.
        .executableTarget(name: "notify-probe", dependencies: ["POSIXSupport", "SystemdSupport"]),
        .target(
            name: "ScanPipeline",
            dependencies: ["SealTrustKit", "NFCReader", "QRScanner", "ScanJournal", "VerdictSocket", "StationWire", "POSIXSupport"]
        ),

        // Thin executables.
        .executableTarget(
            name: "sealtrust-scand",
            dependencies: ["ScanPipeline", "SystemdSupport"]
        ),
        .executableTarget(name: "sealtrust-scanctl", dependencies: ["StationWire", "POSIXSupport"]),
        .executableTarget(name: "socket-bench", dependencies: ["JSONCore", "ScanJournal", "VerdictSocket"]),
        // Appends until killed: the journal's crash test runs it.
        .executableTarget(name: "journal-writer", dependencies: ["JSONCore", "ScanJournal"]),

        // `make bench-daemon`: the daemon's latency, memory and start time (mk/daemon.mk).
        .executableTarget(name: "scand-bench", dependencies: ["JSONCore", "ScanJournal", "SealTrustKit", "TestSupport"]),

        // Launchers for the tools the tests and benchmarks drive: the sandbox API, the virtual tag, a private pcscd.
        .target(name: "Harness", path: "tools/Harness"),
        // Tests and what they share.
        .target(name: "TestSupport", dependencies: ["Harness"], path: "Tests/TestSupport"),
        .testTarget(name: "SealTrustKitTests", dependencies: ["SealTrustKit", "TestSupport"]),
        .testTarget(name: "NFCReaderTests", dependencies: ["NFCReader", "TestSupport"]),
        .testTarget(name: "QRScannerTests", dependencies: ["QRScanner", "CZBar", "TestSupport"]),
        .target(name: "SystemdTestSupport", dependencies: ["TestSupport"], path: "Tests/SystemdTestSupport"),
        .testTarget(name: "SystemdSupportTests", dependencies: ["POSIXSupport", "SystemdSupport", "SystemdTestSupport", "TestSupport", "notify-probe"]),
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore"]),
        .testTarget(name: "StationWireTests", dependencies: ["StationWire"]),
        .testTarget(name: "POSIXSupportTests", dependencies: ["POSIXSupport"]),
        .testTarget(name: "ScanJournalTests", dependencies: ["JSONCore", "ScanJournal", "TestSupport"]),
        .testTarget(name: "VerdictSocketTests", dependencies: ["VerdictSocket", "JSONCore", "ScanJournal", "StationWire", "TestSupport"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: ["ScanPipeline", "JSONCore", "ScanJournal", "SealTrustKit", "StationWire", "TestSupport", "SystemdTestSupport", "sealtrust-scand"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
