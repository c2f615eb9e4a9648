/// A broken property stops the fuzzer with what broke (a precondition's message is lost in -O builds).
/// Compiled into every target's entry by build.sh.
func check(_ condition: Bool, _ message: @autoclosure () -> String = "") {
    if !condition { fatalError(message()) }
}
