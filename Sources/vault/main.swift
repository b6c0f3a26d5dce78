import VaultCLI

#if canImport(Glibc)
import Glibc
#endif

let arguments = VaultCommand.normalized(CommandLine.arguments)
VaultCommand.startGitEarly(for: arguments)
VaultCommand.main(Array(arguments.dropFirst()))
// Done, and everything written is on disk (files are flushed as they are written; locks are
// released by the kernel). Skip the libraries' exit-time clean-up (OpenSSL, ICU, libgit2
// free their caches: ~2 ms of every command), as compilers do; output is flushed first.
fflush(nil)
_exit(0)
