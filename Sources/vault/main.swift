import VaultCLI

VaultCommand.main()
