public enum VaultCLIPlaceholder {}
