import Glibc

// A parent may have spawned us with signals blocked; Ctrl-C and SIGTERM must stop `watch`.
var unblocked = sigset_t()
sigemptyset(&unblocked)
sigprocmask(SIG_SETMASK, &unblocked, nil)

let invocation: Invocation
do {
    invocation = try Invocation.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Output.complain(error.message)
    Output.usage()
    exit(ExitStatus.usage)
}

do {
    exit(try await Client(invocation: invocation).run())
} catch {
    Output.complain(error.message)
    exit(ExitStatus.unreachable)
}
