import Glibc

/// A Python tool of tools/ that binds a free loopback port, prints `LISTENING <port>` as its first line, and exits
/// when its stdin closes (this process went away) or when stopped.
struct ListeningTool {
    let child: ChildProcess
    let port: Int

    /// Starts `/usr/bin/python3 arguments…` and waits for its port; `name` says which tool in errors.
    static func start(_ arguments: [String], name: String, startTimeout: Int64) throws -> ListeningTool {
        let child = try ChildProcess("/usr/bin/python3", arguments)
        let line: String
        do {
            line = try child.waitForLineBlocking(timeout: .seconds(startTimeout)) { _ in true }
        } catch {
            stop(child)
            throw SandboxError.launchFailed("no LISTENING line from \(name) (its stderr is this process's): \(error)")
        }
        let words = line.split(separator: " ")
        guard words.count == 2, words[0] == "LISTENING", let port = Int(words[1]) else {
            stop(child)
            throw SandboxError.launchFailed("unexpected first line from \(name): \(line.debugDescription)")
        }
        return ListeningTool(child: child, port: port)
    }

    /// Ends the tool and waits for it; safe to call more than once.
    static func stop(_ child: ChildProcess) {
        child.closeInput()
        child.signal(SIGTERM)
        child.waitForExit(timeout: .seconds(5))
    }
}
