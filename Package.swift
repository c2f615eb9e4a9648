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

        // Handheld scanners: keyboard-wedge (evdev) and USB-serial (CDC-ACM).
        // The evdev ioctls (variadic in C) in a C target of their own; no library to link.
        .target(name: "CLinuxInput"),
        .target(name: "HandheldScanner", dependencies: ["CLinuxInput"]),

        // The daemon's parts.
        .target(name: "ScanJournal"),
        .target(name: "VerdictSocket", dependencies: ["ScanJournal"]),
        .target(name: "SystemdSupport"),
        // A stand-in service that drives SystemdSupport, for its tests.
        .executableTarget(name: "notify-probe", dependencies: ["SystemdSupport"]),
        .target(
            name: "ScanPipeline",
            dependencies: ["SealTrustKit", "NFCReader", "QRScanner", "HandheldScanner", "ScanJournal", "VerdictSocket"]
        ),

        // Thin executables.
        .executableTarget(
            name: "sealtrust-scand",
            dependencies: ["ScanPipeline", "SystemdSupport"]
        ),
        .executableTarget(name: "sealtrust-scanctl", dependencies: ["ScanJournal"]),
        .executableTarget(name: "socket-bench", dependencies: ["ScanJournal", "VerdictSocket"]),
        // Appends until killed: the journal's crash test runs it.
        .executableTarget(name: "journal-writer", dependencies: ["ScanJournal"]),

        // `make bench-daemon`: the daemon's latency, memory and start time (mk/daemon.mk).
        .executableTarget(name: "scand-bench", dependencies: ["ScanJournal", "SealTrustKit", "TestSupport"]),

        // Tests and what they share: launchers for the sandbox API and the virtual tag.
        .target(name: "TestSupport", dependencies: ["HandheldScanner"], path: "Tests/TestSupport"),
        .testTarget(name: "SealTrustKitTests", dependencies: ["SealTrustKit", "TestSupport"]),
        .testTarget(name: "NFCReaderTests", dependencies: ["NFCReader", "TestSupport"]),
        .testTarget(name: "QRScannerTests", dependencies: ["QRScanner", "CZBar", "TestSupport"]),
        .target(name: "SystemdTestSupport", dependencies: ["TestSupport"], path: "Tests/SystemdTestSupport"),
        .testTarget(name: "SystemdSupportTests", dependencies: ["SystemdSupport", "SystemdTestSupport", "TestSupport", "notify-probe"]),
        .testTarget(name: "HandheldScannerTests", dependencies: ["HandheldScanner", "TestSupport"]),
        .testTarget(name: "ScanJournalTests", dependencies: ["ScanJournal", "TestSupport"]),
        .testTarget(name: "VerdictSocketTests", dependencies: ["VerdictSocket", "ScanJournal", "TestSupport"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: ["ScanPipeline", "ScanJournal", "SealTrustKit", "HandheldScanner", "TestSupport", "SystemdTestSupport", "sealtrust-scand"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
