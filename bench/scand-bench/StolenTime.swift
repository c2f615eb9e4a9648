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

    /// The milliseconds stolen since `earlier`, over all processors, and the seconds that passed, in words.
    func since(_ earlier: StolenTime) -> String {
        let elapsed = at - earlier.at
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return "\((ticks - earlier.ticks) * 1000 / sysconf(Int32(_SC_CLK_TCK))) ms in \(String(format: "%.1f", seconds)) s"
    }
}
