/// The version of vault: what `vault --version` prints, and what the `User-Agent` of its
/// requests to model servers says (`vault/0.1.0`).
public enum VaultVersion {
    public static let current = "0.1.0"
}
