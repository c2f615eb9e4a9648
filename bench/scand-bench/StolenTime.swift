import Foundation

/// Time the hypervisor gave this virtual machine's processors to others (`steal` in /proc/stat), so far: when it grows
/// during one part of a run and not another, the two parts did not run on the same machine, whatever the code did.
struct StolenTime {
    let ticks: Int
    let at = ContinuousClock.now

    init() {
        let line = ((try? String(contentsOfFile: "/proc/stat", encoding: .utf8)) ?? "").split(separator: "\n").first ?? ""
        let fields = line.split(separator: " ")
        ticks = fields.count > 8 ? Int(fields[8]) ?? 0 : 0
    }

    /// What was stolen since `earlier`, over all processors, and the time that passed.
    func since(_ earlier: StolenTime) -> Span {
        Span(stolenMilliseconds: (ticks - earlier.ticks) * 1000 / sysconf(Int32(_SC_CLK_TCK)), elapsed: at - earlier.at)
    }

    /// Steal over one or more stretches of a run: the floor's blocks, or the daemon's.
    struct Span: CustomStringConvertible {
        var stolenMilliseconds = 0
        var elapsed = Duration.zero

        static func += (total: inout Span, part: Span) {
            total.stolenMilliseconds += part.stolenMilliseconds
            total.elapsed += part.elapsed
        }

        var description: String {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return "\(stolenMilliseconds) ms in \(String(format: "%.1f", seconds)) s"
        }
    }
}
