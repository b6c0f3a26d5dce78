import ArgumentParser
import Foundation
import Synchronization
import VaultCore
import VaultKit

extension VaultCommand {
    /// `vault search-watcher`: the search index's watcher (`SearchWatcher`), started by an
    /// indexed search in the background, never by a person.
    struct SearchWatcherCommand: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "search-watcher",
            abstract: "Watch a vault's files for the search index (an indexed search starts it).",
            shouldDisplay: false)

        @Option(help: "The vault's root folder.") var root: String
        @Option(help: "The search index's database.") var index: String

        /// This executable, for the library to start the watcher with: its path when it still
        /// exists, else the kernel's link to it.
        static var executable: String {
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
            guard n > 0 else { return "/proc/self/exe" }
            let path = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return access(path, X_OK) == 0 ? path : "/proc/self/exe"
        }

        func execute() throws {
            // Descriptor 3 is the pipe that says "ready" to the search that started it.
            let ready: Int32 = fcntl(3, F_GETFD) >= 0 ? 3 : -1
            let environment = VaultCommand.settings.environment
            func setting(_ name: String) -> Double? { environment[name].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil } }
            let status = VaultSession.serveSearchWatcher(
                root: root, indexPath: index, readyFD: ready, idleSeconds: setting("VAULT_WATCH_IDLE") ?? 1_800,
                maxPaths: Int(setting("VAULT_WATCH_MAX_PATHS") ?? 10_000))
            fflush(nil)
            _exit(status)
        }
    }
}
