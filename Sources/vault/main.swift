import VaultCLI

#if canImport(Glibc)
import Glibc
#endif

VaultCommand.installProcessHooks()
let arguments = VaultCommand.normalized(CommandLine.arguments)
// Low limits on open files or memory end here with a message, before any thread starts.
if let status = VaultCommand.checkLimits(Array(arguments.dropFirst())) {
    fflush(nil)
    _exit(status)
}
VaultCommand.startGitEarly(for: arguments)
let status = VaultCommand.run(Array(arguments.dropFirst()))
VaultCommand.traceEnd()
// Done, and everything written is on disk (files are flushed as they are written; locks are
// released by the kernel). `_exit`, never `exit`: the libraries' exit-time clean-up (OpenSSL,
// ICU, libgit2 free their caches) costs ~2 ms of every command, and, run while the thread that
// loads libgit2 is still inside them, crashed quick exits (VaultCommand.run). Output is
// flushed first.
fflush(nil)
_exit(status)
