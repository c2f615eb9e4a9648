import DaemonConfiguration
import QRScanner
import ScanJournal

/// The sources the options name: an NFC monitor unless set to `none`, each camera or Y4M stream (a source and a
/// thread each), and each handheld scanner; each dates what it reads by `clock`, the one the core times verdicts by.
public enum StationSources {
    public static func make(for options: DaemonOptions, clock: DaemonClock) -> [any ScanSource] {
        var sources: [any ScanSource] = []
        switch options.nfc {
        case .none: break
        case .auto: sources.append(NFCSource(readerFilter: nil, feedback: options.feedback, clock: clock))
        case .matching(let name): sources.append(NFCSource(readerFilter: name, feedback: options.feedback, clock: clock))
        }
        let rescanAfter = Duration.milliseconds(Int64((options.rescanAfter * 1000).rounded()))
        for camera in options.cameras {
            switch camera {
            case .auto: sources.append(QRSource(.camera(device: nil), rescanAfter: rescanAfter, clock: clock))
            case .device(let path): sources.append(QRSource(.camera(device: path), rescanAfter: rescanAfter, clock: clock))
            case .y4m(let path): sources.append(QRSource(.y4m(path: path), rescanAfter: rescanAfter, clock: clock))
            }
        }
        for spec in options.scanners {
            sources.append(HandheldSource(spec, keymap: options.scannerKeymap, rescanAfter: rescanAfter, clock: clock))
        }
        return sources
    }
}
