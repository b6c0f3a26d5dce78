import CVaultScan
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// The search index's watcher: a background process per vault that watches `rooms/` and
/// `diary/**` with inotify and tells a search which files changed since the index was last
/// brought up to date, so a repeated search stamps those instead of every file (and the rooms'
/// volumes, `volumes/**`, which it does not watch).
///
/// The library never assumes its own executable: the CLI gives the command that runs the
/// watcher (`vault search-watcher`, through `/proc/self/exe`), and `serve` is its body. Why
/// its answers are enough is argued in `Index/README.md`, "The watcher".
///
///     index.watcher = SearchWatcher(command: ["/proc/self/exe", "search-watcher"])
///     let (results, _) = try search.run(query, index: index)   // asks it, starting it if needed
public struct SearchWatcher: Sendable {
    /// The executable and the arguments that start a watcher; `--root DIR --index PATH` follow.
    public var command: [String]

    public init(command: [String]) {
        self.command = command
    }

    /// What a watcher answered: its epoch and generation, and the paths changed since the
    /// generation asked about (nil: everything may have changed).
    struct Answer {
        var epoch: UInt64
        var generation: UInt64
        var changed: [String]?
    }

    /// How long a search waits for a watcher it started to be ready.
    static let readyMilliseconds: Int32 = 5_000

    /// Asks the watcher of the index at `indexPath` (vault `root`) what changed since (`epoch`,
    /// `generation`), starting one first when none answers and waiting until it listens (its
    /// watches then exist). Nil when no watcher can answer (the file system is not local, the
    /// socket's path too long, the start failed): the caller then checks every file.
    func ask(root: String, indexPath: String, epoch: UInt64, generation: UInt64) -> Answer? {
        let socket = Self.socketPath(indexPath)
        if let answer = Self.ask(socket, epoch, generation) { return answer }
        guard !command.isEmpty, vs_local_file_system(root) != 0 else { return nil }
        Trace.mark("search: starting the watcher")
        let argv = command + ["--root", root, "--index", indexPath]
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        defer { for p in cArguments { free(p) } }
        var ready: Int32 = -1
        guard vs_watch_spawn(cArguments, &ready) > 0 else { return nil }
        // Not ready: another watcher holds the vault (started at the same moment), or none
        // could start; asked once more either way.
        _ = vs_watch_wait_ready(ready, Self.readyMilliseconds)
        Trace.mark("search: watcher ready")
        return Self.ask(socket, epoch, generation)
    }

    private static func ask(_ socket: String, _ epoch: UInt64, _ generation: UInt64) -> Answer? {
        var raw = vs_watch_answer()
        guard vs_watch_ask(socket, epoch, generation, &raw) == 0 else { return nil }
        defer { vs_watch_answer_free(&raw) }
        var answer = Answer(epoch: raw.epoch, generation: raw.generation, changed: nil)
        if raw.everything == 0 {
            var paths: [String] = []
            paths.reserveCapacity(Int(raw.count))
            var at = 0
            while at < Int(raw.bytes), let base = raw.paths {
                let path = String(cString: base + at)
                at += path.utf8.count + 1
                paths.append(path)
            }
            answer.changed = paths
        }
        return answer
    }

    /// The watcher's socket, in the index's folder, named by a hash of the index's path (a
    /// socket's path must fit in 107 bytes). Only the same user may ask: the watcher checks the
    /// asker's credentials (`SO_PEERCRED`), whatever the folder's permissions.
    static func socketPath(_ indexPath: String) -> String { stem(indexPath) + ".sock" }
    /// The lock a watcher holds for its life: one watcher a vault.
    static func lockPath(_ indexPath: String) -> String { stem(indexPath) + ".lock" }

    /// `<the index's folder>/watch-<16 hex digits of the SHA-1 of its path>`.
    private static func stem(_ indexPath: String) -> String {
        let folder = indexPath.lastIndex(of: "/").map { String(indexPath[..<$0]) } ?? "."
        let digest = FileVersion.sha1(Array(indexPath.utf8)).prefix(8)
        let hex = digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return folder + "/watch-" + hex
    }

    /// Runs a watcher for the vault at `root` whose index is at `indexPath` until it has had no
    /// question for `idleSeconds` (the command line's `VAULT_WATCH_IDLE`, default 1,800), the
    /// vault's root is gone, or a signal ends it; `readyFD` gets one byte once it listens.
    /// Returns its exit status. Keeps at most `maxPaths` changed paths (`VAULT_WATCH_MAX_PATHS`,
    /// default 10,000; more: "everything").
    public static func serve(
        root: String, indexPath: String, readyFD: Int32, idleSeconds: Double = 1_800, maxPaths: Int = 10_000
    ) -> Int32 {
        let idle = Int64(max(idleSeconds, 0.001) * 1_000)
        let maxPaths = Int32(min(max(maxPaths, 1), 1_000_000))
        guard let real = SearchIndex.realPath(root) else { return 2 }
        return vs_watch_run(real, socketPath(indexPath), lockPath(indexPath), readyFD, idle, maxPaths)
    }
}

/// The side file `<database>.watch`: the watcher's epoch and generation that the index's
/// record of generation `indexGeneration` (the database's `meta.generation`, and the `.stamps`
/// file's) was brought up to date against. Valid only for that generation: any write to the
/// database gives it another.
struct WatchRecord: Equatable {
    var epoch: UInt64
    var generation: UInt64
    var indexGeneration: Int64

    /// "vaultsw1" as a little-endian integer.
    static let magic: UInt64 = 0x3177_7374_6C75_6176

    static func read(_ path: String) -> WatchRecord? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var words = [UInt64](repeating: 0, count: 5)
        let got = words.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 40, 0) }
        guard got == 40, words[0] == magic, words[4] == StampFile.checksum(words[1..<4]) else { return nil }
        return WatchRecord(epoch: words[1], generation: words[2], indexGeneration: Int64(bitPattern: words[3]))
    }

    /// Written whole to a temporary file renamed over the old one; a failure leaves the old one
    /// or none (the next search then checks every file).
    func write(to path: String) {
        var words: [UInt64] = [Self.magic, epoch, generation, UInt64(bitPattern: indexGeneration), 0]
        words[4] = StampFile.checksum(words[1..<4])
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let written = words.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, 40) }
        close(fd)
        if written != 40 || rename(temporary, path) != 0 { unlink(temporary) }
    }
}

/// `vault search`'s watcher as a `WorkTreeWatcher`, for `vault sync`: the same process a search
/// starts and asks (one a vault, at the default index's place), started by the first question
/// when none runs. A sync keeps its own point (`SyncWatchRecord`); the search index's record is
/// not touched.
public struct VaultWatcher: WorkTreeWatcher {
    let watcher: SearchWatcher
    let realRoot: String
    let indexPath: String

    /// Nil when the vault's root cannot be resolved. `command` runs a watcher, as for a search.
    public init?(vaultRoot: String, command: [String], cacheHome: String) {
        guard let real = SearchIndex.realPath(vaultRoot) else { return nil }
        watcher = SearchWatcher(command: command)
        realRoot = real
        indexPath = SearchIndex.defaultPath(forVaultAt: real, cacheHome: cacheHome)
    }

    public func changes(since point: WatchPoint?) -> WatchAnswer? {
        // The socket lives in the index's folder, made here when no search made it yet.
        let folder = String(indexPath[..<(indexPath.lastIndex(of: "/") ?? indexPath.startIndex)])
        if access(folder, F_OK) != 0 { try? FileIO.makeDirectory(folder) }
        guard
            let answer = watcher.ask(
                root: realRoot, indexPath: indexPath, epoch: point?.epoch ?? 0, generation: point?.generation ?? 0)
        else { return nil }
        return WatchAnswer(point: WatchPoint(epoch: answer.epoch, generation: answer.generation), changed: answer.changed)
    }
}
