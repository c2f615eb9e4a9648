import Glibc

let invocation: Invocation
do {
    invocation = try Invocation.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    Output.complain(error.message)
    Output.usage()
    exit(ExitStatus.usage)
}

do {
    exit(try Client(invocation: invocation).run())
} catch {
    Output.complain(error.message)
    exit(ExitStatus.unreachable)
}
