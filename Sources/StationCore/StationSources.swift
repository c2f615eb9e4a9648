import DaemonConfiguration
import QRScanner

/// The sources the options name: an NFC monitor unless set to `none`, each camera or Y4M stream (a source and a
/// thread each), and each handheld scanner.
public enum StationSources {
    public static func make(for options: DaemonOptions) -> [any ScanSource] {
        var sources: [any ScanSource] = []
        switch options.nfc {
        case .none: break
        case .auto: sources.append(NFCSource(readerFilter: nil, feedback: options.feedback))
        case .matching(let name): sources.append(NFCSource(readerFilter: name, feedback: options.feedback))
        }
        let rescanAfter = Duration.milliseconds(Int64((options.rescanAfter * 1000).rounded()))
        for camera in options.cameras {
            switch camera {
            case .auto: sources.append(QRSource(.camera(device: nil), rescanAfter: rescanAfter))
            case .device(let path): sources.append(QRSource(.camera(device: path), rescanAfter: rescanAfter))
            case .y4m(let path): sources.append(QRSource(.y4m(path: path), rescanAfter: rescanAfter))
            }
        }
        for spec in options.scanners {
            sources.append(HandheldSource(spec, keymap: options.scannerKeymap, rescanAfter: rescanAfter))
        }
        return sources
    }
}
