import Foundation
import VaultCore

extension IncomingLimits {
    /// This machine's caps on what a sync, a clone, a merge, a restore or an import takes in: the
    /// defaults with the user configuration's `limits:` (`UserConfig`). The libraries add the
    /// vault's git config (`vault.maxFileSize`…) and let `vault.yml` lower them
    /// (`GitHistory.incomingLimits(machine:vault:)`); the environment is read here, never there.
    ///
    /// - Throws: `VaultError.malformed` when the user configuration cannot be read.
    static func ofThisMachine(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(VaultError) -> IncomingLimits
    {
        IncomingLimits().setting(try UserConfig.load(environment: environment).limits)
    }
}
