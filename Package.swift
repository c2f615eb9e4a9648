// swift-tools-version:6.0
import PackageDescription

/// The JSON parser and the QR decoder are optimised in debug builds too: the suite pushes hundreds of megabytes of
/// JSON and thousands of photographs through them, which unoptimised code takes minutes over.
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "sealtrust-scand",
    products: [
        .library(name: "SealTrustKit", targets: ["SealTrustKit"]),
        .executable(name: "sealtrust-scand", targets: ["sealtrust-scand"]),
        .executable(name: "sealtrust-scanctl", targets: ["sealtrust-scanctl"]),
        .executable(name: "sealtrust-mqtt", targets: ["sealtrust-mqtt"]),
        .library(name: "StationClient", targets: ["StationClient"]),
        .executable(name: "sealtrust-kiosk", targets: ["sealtrust-kiosk"]),
    ],
    targets: [
        // Thin typed calls over the system: errno as a value, Unix socket addresses, descriptors, named threads.
        .target(name: "POSIXSupport"),
        // The one JSON value type, its parser and its writer, for API bodies, events and commands alike.
        .target(name: "JSONCore", swiftSettings: optimisedInDebug),
        // Protocol 1's words: typed events, commands and answers, and the one-line event formatter.
        // Lines for people: the one logger and the one escaper of outside text, for every program.
        .target(name: "Logging", dependencies: ["POSIXSupport"]),
        .target(name: "StationWire", dependencies: ["JSONCore", "Logging"]),
        // Every sentence a screen shows, the daemon's and the kiosk page's, in English and French, by id; and the
        // `texts` file that replaces them, read and guarded the same way for both programs.
        .target(name: "Sentences", dependencies: ["JSONCore", "StationWire"]),
        // The version every shipped program prints, in one place.
        .target(name: "ProductVersion"),

        // The parser and the API client: FoundationEssentials and the JSON target; the transport writes and reads
        // HTTP/1.1 itself over libcurl's connections.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "SealTrustKit", dependencies: ["JSONCore", "CCurl", "POSIXSupport", "Logging", "ProductVersion", "StationWire", "Sentences"]),

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
        // zxing-cpp (libzxing-dev) reads QR codes as cameras see them; C++ behind a few C functions, in this target alone.
        .target(name: "CZXing", linkerSettings: [.linkedLibrary("ZXing")]),
        .target(name: "QRScanner", dependencies: ["CZBar", "CZXing", "POSIXSupport"], swiftSettings: optimisedInDebug),

        // Handheld scanners: keyboard-wedge (evdev) and USB-serial (CDC-ACM).
        // The evdev ioctls (variadic in C) in a C target of their own; no library to link.
        // The pure part (records, keymaps, code ends, lines) apart from the devices, so fuzz/ builds it alone.
        .target(name: "HandheldScanner"),
        .target(name: "CLinuxInput"),
        .target(name: "ScannerDevices", dependencies: ["HandheldScanner", "CLinuxInput", "Logging", "POSIXSupport"]),

        // The daemon's parts.
        .target(name: "ScanJournal", dependencies: ["JSONCore", "POSIXSupport"]),
        .target(name: "SystemdSupport", dependencies: ["POSIXSupport"]),
        // The service group: start in order, signals on a thread of their own, stop in reverse order, systemd told.
        .target(name: "Lifecycle", dependencies: ["POSIXSupport", "SystemdSupport"]),
        .target(name: "VerdictSocket", dependencies: ["JSONCore", "ScanJournal", "StationWire", "POSIXSupport", "Lifecycle"]),
        // What the command line and the configuration file set, and the files they name, read as the daemon reads them:
        // apart from the core, so that fuzz/config builds few modules.
        .target(name: "DaemonConfiguration", dependencies: ["HandheldScanner", "Logging", "SealTrustKit", "Sentences", "StationWire", "POSIXSupport"]),
        // The station core: sources in, one scan and one verdict per string read, every event journaled then published.
        .target(
            name: "StationCore",
            dependencies: [
                "JSONCore", "SealTrustKit", "NFCReader", "QRScanner", "HandheldScanner", "ScannerDevices", "ScanJournal", "VerdictSocket",
                "StationWire", "Sentences", "POSIXSupport", "Lifecycle", "Logging", "ProductVersion", "DaemonConfiguration",
            ]
        ),

        // Thin executables.
        .executableTarget(
            name: "sealtrust-scand",
            dependencies: [
                "StationCore", "DaemonConfiguration", "ScanJournal", "VerdictSocket", "Lifecycle", "Logging", "SystemdSupport", "ProductVersion",
                "POSIXSupport", "StationWire",
            ]
        ),
        .executableTarget(name: "sealtrust-scanctl", dependencies: ["JSONCore", "Logging", "StationWire", "StationClient", "POSIXSupport", "ProductVersion"]),

        // A client of the daemon's socket for bridges: lines, commands, replay with reconnects.
        .target(name: "StationClient", dependencies: ["JSONCore", "StationWire", "POSIXSupport"]),
        // The MQTT bridge: a client of the socket that publishes through libmosquitto; its logic in a library, for the
        // tests and fuzz/mqtt, and a thin executable.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .target(
            name: "MQTTBridge",
            dependencies: ["CMosquitto", "POSIXSupport", "Logging", "StationClient", "JSONCore", "StationWire", "SystemdSupport", "ProductVersion", "Lifecycle"]
        ),
        .executableTarget(name: "sealtrust-mqtt", dependencies: ["MQTTBridge", "Lifecycle"]),

        // The kiosk bridge: the page, Server-Sent Events, metrics and health over libmicrohttpd (outputs.md).
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // The certificate's QR code, drawn as SVG (Sources/KioskBridge/CertificateCode.swift).
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .target(name: "KioskBridge", dependencies: ["CMicroHTTPD", "CQRencode", "JSONCore", "Logging", "Sentences", "StationWire", "StationClient", "Lifecycle", "POSIXSupport"]),
        .executableTarget(name: "sealtrust-kiosk", dependencies: ["KioskBridge", "Lifecycle", "Logging", "POSIXSupport", "ProductVersion", "SystemdSupport"]),

        // What the tests and benchmarks drive: child processes, the sandbox API, the virtual tag, a private
        // pcscd, a socket line client. Outside Tests/, for the benchmarks; never shipped.
        .target(name: "Harness", dependencies: ["CPCSCLite", "POSIXSupport", "HandheldScanner"], path: "tools/Harness"),
        // Headless Chromium over the DevTools pipe, raw HTTP probes and a daemon-plus-bridge station, for the
        // kiosk's tests and its benchmark.
        .target(name: "KioskHarness", dependencies: ["Harness", "JSONCore", "StationWire", "StationClient"], path: "tools/KioskHarness"),

        // Benchmarks (`make bench-…`), each beside its reference; never shipped.
        // `make bench-nfc`: tap-to-URL latency beside bench/nfc/pcsc_read.c, on the virtual tag.
        .executableTarget(name: "nfc-bench", dependencies: ["NFCReader", "Harness"], path: "bench/nfc-bench"),
        // `make bench-qr`: the decoder's cost per frame beside libzbar's and zxing-cpp's loops.
        .executableTarget(name: "qr-bench", dependencies: ["QRScanner"], path: "bench/qr-bench"),
        // `make bench-socket`: the verdict socket's fan-out and memory.
        .executableTarget(name: "socket-bench", dependencies: ["JSONCore", "POSIXSupport", "ScanJournal", "StationWire", "VerdictSocket", "Harness"], path: "bench/socket-bench"),
        // `make bench-scanners`: a handheld scanner's terminator to its `scan` at a subscriber, beside verify's.
        .executableTarget(name: "scanner-bench", dependencies: ["HandheldScanner", "Harness", "JSONCore"], path: "bench/scanner-bench"),
        // `make bench-feedback`: from a verdict to the reader's LED and buzzer command at the virtual tag (mk/nfc.mk).
        .executableTarget(name: "feedback-bench", dependencies: ["NFCReader", "CPCSCLite", "Harness"], path: "bench/feedback"),
        // `make bench-mqtt`: sealtrust-mqtt's latency and drain rate beside mosquitto_pub (mk/mqtt.mk).
        .executableTarget(name: "mqtt-bench", dependencies: ["Harness"], path: "bench/mqtt"),
        // `make bench-daemon`: the daemon's latency, memory and start time (mk/daemon.mk).
        .executableTarget(
            name: "scand-bench", dependencies: ["CPCSCLite", "JSONCore", "POSIXSupport", "ScanJournal", "SealTrustKit", "Harness"], path: "bench/scand-bench"
        ),

        // `make bench-kiosk`: from a verdict to the page showing it, through the DevTools protocol (mk/kiosk.mk).
        .executableTarget(name: "kiosk-bench", dependencies: ["KioskHarness", "JSONCore", "StationWire", "StationClient"], path: "bench/kiosk"),

        // Probes the tests run as child processes.
        // A stand-in service that drives SystemdSupport, for its tests.
        .executableTarget(name: "notify-probe", dependencies: ["POSIXSupport", "SystemdSupport"], path: "Tests/Probes/notify-probe"),
        // Appends until killed: the journal's crash test runs it.
        .executableTarget(name: "journal-writer", dependencies: ["ScanJournal"], path: "Tests/Probes/journal-writer"),

        // Tests and what they share.
        .target(name: "TestSupport", dependencies: ["Harness"], path: "Tests/TestSupport"),
        .testTarget(name: "SealTrustKitTests", dependencies: ["SealTrustKit", "JSONCore", "Sentences", "StationWire", "TestSupport"]),
        .testTarget(name: "SentencesTests", dependencies: ["Sentences"]),
        .testTarget(name: "NFCReaderTests", dependencies: ["NFCReader", "POSIXSupport", "TestSupport"]),
        .testTarget(name: "QRScannerTests", dependencies: ["QRScanner", "CZBar", "CZXing", "TestSupport"]),
        .testTarget(name: "SystemdSupportTests", dependencies: ["POSIXSupport", "SystemdSupport", "TestSupport", "notify-probe"]),
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore"]),
        .testTarget(name: "DaemonConfigurationTests", dependencies: ["DaemonConfiguration", "TestSupport"]),
        .testTarget(name: "StationWireTests", dependencies: ["StationWire", "JSONCore", "Logging"]),
        .testTarget(name: "POSIXSupportTests", dependencies: ["POSIXSupport"]),
        .testTarget(name: "HandheldScannerTests", dependencies: ["HandheldScanner", "ScannerDevices", "TestSupport"]),
        .testTarget(
            name: "StationCoreTests",
            dependencies: [
                "StationCore", "DaemonConfiguration", "HandheldScanner", "JSONCore", "Logging", "NFCReader", "ScanJournal", "SealTrustKit", "Sentences", "StationWire",
                "VerdictSocket", "TestSupport",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "ScanJournalTests", dependencies: ["JSONCore", "ScanJournal", "TestSupport"]),
        .testTarget(name: "VerdictSocketTests", dependencies: ["VerdictSocket", "JSONCore", "POSIXSupport", "ScanJournal", "StationWire", "TestSupport"]),
        .target(name: "BridgeTestSupport", dependencies: ["TestSupport"], path: "Tests/BridgeTestSupport"),
        .testTarget(name: "StationClientTests", dependencies: ["StationClient", "StationWire", "POSIXSupport", "BridgeTestSupport", "TestSupport", "sealtrust-scand"]),
        .testTarget(
            name: "MQTTBridgeTests",
            dependencies: [
                "BridgeTestSupport", "TestSupport", "ScanJournal", "JSONCore", "MQTTBridge", "StationWire", "StationClient", "POSIXSupport",
                "sealtrust-scand", "sealtrust-mqtt",
            ]
        ),
        .testTarget(
            name: "KioskTests",
            dependencies: [
                "KioskBridge", "KioskHarness", "Harness", "QRScanner", "TestSupport", "JSONCore", "Sentences", "StationWire", "StationClient", "sealtrust-kiosk", "sealtrust-scand",
            ]
        ),
        .testTarget(
            name: "DaemonTests",
            dependencies: [
                "JSONCore", "ScanJournal", "HandheldScanner", "POSIXSupport", "TestSupport", "ProductVersion",
                "sealtrust-scand",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
