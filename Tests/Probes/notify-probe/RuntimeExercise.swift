import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Touches the parts of the Swift runtime the daemon relies on (Foundation's JSON and ICU, Regex, libcurl through
/// URLSession, Dispatch, tasks), so a hardening setting that breaks any of them shows here first.
func exerciseRuntime() async -> String {
    struct Stamp: Codable, Equatable { let name: String; let at: Date }
    do {
        let stamp = Stamp(name: "probe", at: Date(timeIntervalSince1970: 1_700_000_000))
        guard try JSONDecoder().decode(Stamp.self, from: JSONEncoder().encode(stamp)) == stamp else { return "json mismatch" }
        let chip = try Regex("picc_data=([0-9A-F]{32})")
        guard "https://sealtrust.io/c?picc_data=EF963FF7828658A599F3041510671E88".contains(chip) else { return "regex missed" }
        let words = try NSRegularExpression(pattern: "\\p{L}+")
        guard words.numberOfMatches(in: "scellé intact", range: NSRange(location: 0, length: 13)) == 2 else { return "icu missed" }
        // Port 9 (discard) is closed on loopback: the request must fail as a transport error, not crash.
        do {
            _ = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:9/")!)
            return "urlsession reached a closed port"
        } catch let error as URLError where error.code == .cannotConnectToHost {
        }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { continuation.resume(returning: "ok") }
        }
    } catch {
        return "error \(error)"
    }
}
