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

        // QR: frames through libzbar.
        .systemLibrary(
            name: "CZBar",
            pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]
        ),
        .target(name: "QRScanner", dependencies: ["CZBar", "POSIXSupport"]),

        // Handheld scanners: keyboard-wedge (evdev) and USB-serial (CDC-ACM).
        // The evdev ioctls (variadic in C) in a C target of their own; no library to link.
        // The pure part (records, keymaps, code ends, lines) apart from the devices, so fuzz/ builds it alone.
        .target(name: "HandheldScanner"),
        .target(name: "CLinuxInput"),
        .target(name: "ScannerDevices", dependencies: ["HandheldScanner", "CLinuxInput", "POSIXSupport"]),

        // The daemon's parts.
        .target(name: "ScanJournal", dependencies: ["JSONCore"]),
        .target(name: "VerdictSocket", dependencies: ["ScanJournal", "StationWire", "POSIXSupport"]),
        .target(name: "SystemdSupport", dependencies: ["POSIXSupport"]),
        .target(
            name: "ScanPipeline",
            dependencies: ["SealTrustKit", "NFCReader", "QRScanner", "HandheldScanner", "ScannerDevices", "ScanJournal", "VerdictSocket", "StationWire", "POSIXSupport"]
        ),

        // Thin executables.
        .executableTarget(
            name: "sealtrust-scand",
            dependencies: ["ScanPipeline", "SystemdSupport"]
        ),
        .executableTarget(name: "sealtrust-scanctl", dependencies: ["StationWire", "POSIXSupport"]),

        // What the tests and benchmarks drive: child processes, the sandbox API, the virtual tag, a private
        // pcscd, a socket line client. Outside Tests/, for the benchmarks; never shipped.
        .target(name: "Harness", dependencies: ["HandheldScanner"], path: "tools/Harness"),

        // Benchmarks (`make bench-…`), each beside its reference; never shipped.
        // `make bench-nfc`: tap-to-URL latency beside bench/nfc/pcsc_read.c, on the virtual tag.
        .executableTarget(name: "nfc-bench", dependencies: ["NFCReader", "Harness"], path: "bench/nfc-bench"),
        // `make bench-qr`: the decoder's cost per frame beside libzbar's and zxing-cpp's loops.
        .executableTarget(name: "qr-bench", dependencies: ["QRScanner"], path: "bench/qr-bench"),
        // `make bench-socket`: the verdict socket's fan-out and memory.
        .executableTarget(name: "socket-bench", dependencies: ["JSONCore", "ScanJournal", "VerdictSocket"], path: "bench/socket-bench"),
        // `make bench-scanners`: a handheld scanner's terminator to its `scan` at a subscriber, beside verify's.
        .executableTarget(name: "scanner-bench", dependencies: ["HandheldScanner", "Harness", "JSONCore"], path: "bench/scanner-bench"),
        // `make bench-daemon`: the daemon's latency, memory and start time (mk/daemon.mk).
        .executableTarget(
            name: "scand-bench", dependencies: ["JSONCore", "ScanJournal", "SealTrustKit", "Harness"], path: "bench/scand-bench"
        ),

        // Probes the tests run as child processes.
        // A stand-in service that drives SystemdSupport, for its tests.
        .executableTarget(name: "notify-probe", dependencies: ["POSIXSupport", "SystemdSupport"], path: "Tests/Probes/notify-probe"),
        // Appends until killed: the journal's crash test runs it.
        .executableTarget(name: "journal-writer", dependencies: ["JSONCore", "ScanJournal"], path: "Tests/Probes/journal-writer"),

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
        .testTarget(name: "HandheldScannerTests", dependencies: ["HandheldScanner", "ScannerDevices", "TestSupport"]),
        .testTarget(name: "ScanJournalTests", dependencies: ["JSONCore", "ScanJournal", "TestSupport"]),
        .testTarget(name: "VerdictSocketTests", dependencies: ["VerdictSocket", "JSONCore", "ScanJournal", "StationWire", "TestSupport"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: ["ScanPipeline", "JSONCore", "ScanJournal", "SealTrustKit", "StationWire", "HandheldScanner", "TestSupport", "SystemdTestSupport", "sealtrust-scand"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
