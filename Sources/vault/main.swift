import VaultCLI
