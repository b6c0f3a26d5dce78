import VaultCLI

let arguments = VaultCommand.normalized(CommandLine.arguments)
VaultCommand.startGitEarly(for: arguments)
VaultCommand.main(Array(arguments.dropFirst()))
