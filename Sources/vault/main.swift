import VaultCLI

VaultCommand.startGitEarly(for: CommandLine.arguments)
VaultCommand.main()
