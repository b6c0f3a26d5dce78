import CVaultScan
import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#endif

/// The files a search reads: `rooms/**/*.md`, the rooms' volumes `volumes/**/*.md` (searched as
/// part of their rooms), `diary/**/*.md`, as `Vault.roomPaths` and `diaryPaths` list them (no
/// hidden names, no symbolic links), but by `readdir`'s file types,
/// sorted by their bytes, and listed in C (`CVaultScan`) with their folders kept open: each file
/// is then opened (`openat`) and stamped (`fstatat`) relative to its folder, not walked from the
/// vault's root, and no `String` is made for a file without hits.
final class FileList: @unchecked Sendable {
    /// The C listing; read-only once made, so any thread may open or stamp its files.
    private let files: UnsafeMutablePointer<vs_files>
    /// The vault's root folder, open (the list's folders that are not kept open are relative to it).
    private let root: Int32

    /// The kind of a path this list gave (`VaultPath.kind` checks far more, for any path): a
    /// room's volume is searched as a room (its hits are room hits).
    static func kind(of path: String) -> VaultPath.Kind {
        path.utf8.starts(with: "rooms/".utf8) || path.utf8.starts(with: "volumes/".utf8) ? .room : .diaryEntry
    }

    /// The folders of the rooms scope: `rooms/`, then the rooms' volumes (`volumes/`, which
    /// most vaults lack: one failed open, and in a saved listing one failed open to check it).
    static let roomFolders: [(String, Bool)] = [("rooms", true), (VaultPath.volumes, true)]

    /// Whether the listing came from the saved one (`cache`), not from reading the folders.
    private(set) var fromCache = false

    /// The files of `folders` (`(name, recursive)`), each folder's sorted by bytes, in that order.
    ///
    /// With `cache` (a file outside the vault, always for the same `folders`): the listing saved
    /// there is taken when every folder it read is as it was then (device, inode, modification and
    /// change times: adding, removing or renaming a name in a folder changes its times) and had
    /// not changed within `racyMargin` nanoseconds before that listing began; else the folders
    /// are read, and the listing saved there.
    /// With `listing` false, nothing is read or saved when the saved listing does not hold; with
    /// `top`, only the saved files under that top folder are taken.
    init(
        root: String, folders: [(String, Bool)], cache: String? = nil, racyMargin: Int64 = 2_000_000_000,
        listing: Bool = true, top: String? = nil
    ) {
        files = .allocate(capacity: 1)
        vs_files_init(files)
        self.root = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard self.root >= 0 else { return }
        if let cache, vs_files_load_top(files, self.root, cache, racyMargin, top) == 0 {
            fromCache = true
            return
        }
        guard listing else { return }
        for (folder, recursive) in folders where vs_files_list(files, self.root, folder, recursive ? 1 : 0) != 0 {
            fatalError("out of memory listing \(folder)")
        }
        if let cache { _ = vs_files_save(files, self.root, cache) }
    }

    /// `paths` (relative to `root`) as they are.
    init(root: String, paths: [String]) {
        files = .allocate(capacity: 1)
        vs_files_init(files)
        self.root = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        for var path in paths {
            let failed = path.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) {
                    vs_files_add(files, self.root, $0.baseAddress, UInt32(utf8.count))
                }
            }
            if failed != 0 { fatalError("out of memory listing files") }
        }
    }

    /// Every room (with its volumes) and diary entry: the listing saved in `cache` while it
    /// holds (see `init(root:folders:cache:racyMargin:)`), else `rooms/` and `volumes/` read
    /// again while another thread takes the diary's saved files (when none of its folders
    /// changed) or reads `diary/` (each of tens of thousands of names takes about as long),
    /// joined, and saved there.
    static func everything(root: String, cache: String? = nil, racyMargin: Int64 = 2_000_000_000) -> FileList {
        if let cache, let saved = saved(root: root, cache: cache, racyMargin: racyMargin) { return saved }
        let diary = DiaryListing(root: root, cache: cache, racyMargin: racyMargin)
        let rooms = FileList(root: root, folders: roomFolders)
        guard rooms.append(diary.list) else { fatalError("out of memory listing files") }
        if let cache { rooms.save(to: cache) }
        return rooms
    }

    /// The listing of every room and entry saved at `cache` (or with `top`, of the files under
    /// that top folder), when it holds.
    static func saved(root: String, cache: String, racyMargin: Int64 = 2_000_000_000, top: String? = nil)
        -> FileList?
    {
        let saved = FileList(root: root, folders: [], cache: cache, racyMargin: racyMargin, listing: false, top: top)
        return saved.fromCache ? saved : nil
    }

    /// The diary's files, on another thread from when it is made: its saved files (`cache`,
    /// when none of its folders changed) or else its folders read (`list` waits for them).
    final class DiaryListing: @unchecked Sendable {
        private var listed: FileList?
        private var saved = false
        private let known = DispatchSemaphore(value: 0)
        private let done = DispatchSemaphore(value: 0)

        init(root: String, cache: String? = nil, racyMargin: Int64 = 2_000_000_000) {
            DispatchQueue.global().async {
                if let cache, let part = FileList.saved(root: root, cache: cache, racyMargin: racyMargin, top: "diary") {
                    self.listed = part
                    self.saved = true
                }
                self.known.signal()
                if self.listed == nil { self.listed = FileList(root: root, folders: [("diary", true)]) }
                self.done.signal()
            }
        }

        /// Whether the files are the saved ones (waits only for the saved listing to be read).
        lazy var fromSavedListing: Bool = {
            known.wait()
            return saved
        }()

        lazy var list: FileList = {
            done.wait()
            guard let listed else { preconditionFailure("the diary's listing ended without a list") }
            return listed
        }()
    }

    /// Appends `other`'s files (listed under the same root) to this list, as if it had listed
    /// them: moved (`other` is left empty), or with `keepingIt` copied (its folders duplicated).
    /// False when that failed (memory, or descriptors for the copies, ran out): this list is
    /// then only good for closing.
    @discardableResult
    func append(_ other: FileList, keepingIt: Bool = false) -> Bool {
        guard root >= 0, other.root >= 0 else { return true }
        return vs_files_append(files, root, other.files, other.root, keepingIt ? 1 : 0) == 0
    }

    /// Saves the listing at `cache` (a file outside the vault), for `init(root:folders:cache:)`.
    func save(to cache: String) {
        guard root >= 0 else { return }
        _ = vs_files_save(files, root, cache)
    }

    deinit {
        vs_files_free(files)
        files.deallocate()
        if root >= 0 { close(root) }
    }

    var count: Int { Int(files.pointee.count) }

    /// The path of file `k`, relative to the root.
    func path(_ k: Int) -> String {
        String(cString: files.pointee.bytes + Int(files.pointee.starts[k]))
    }

    /// Every path, in order.
    var paths: [String] { (0..<count).map(path) }

    /// File `k` opened for reading (not following a symbolic link), or -1 with `errno`.
    func open(_ k: Int) -> Int32 { root < 0 ? -1 : vs_files_open(files, Int32(k)) }

    /// `StampFile.listHash(paths)`, from the listing's bytes (no `String` made; saved with the
    /// listing, so a listing taken from the saved one is not hashed again).
    var listHash: UInt64 { vs_files_list_hash(files) }

    /// The position of `path` in a listing of every room and entry (`everything`), nil when
    /// it is not listed.
    func position(of path: String) -> Int? {
        let k = vs_files_find(files, path)
        return k >= 0 ? Int(k) : nil
    }

    /// The positions of the files under the top folder `top` (`volumes`), in a listing by folders
    /// (each top folder's files together): empty when there are none.
    func positions(under top: String) -> Range<Int> {
        var from: Int32 = 0
        var to: Int32 = 0
        vs_files_top_range(files, top, &from, &to)
        return Int(from)..<Int(to)
    }

    /// The stamps of the files at `positions`, in that order.
    func stamps(at positions: [Int32]) -> [FileStamp] {
        guard root >= 0, !positions.isEmpty else { return [FileStamp](repeating: .unreadable, count: positions.count) }
        var stamps = [FileStamp](unsafeUninitializedCapacity: positions.count) { _, n in n = positions.count }
        stamps.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress!.assumingMemoryBound(to: vs_stamp.self)
            positions.withUnsafeBufferPointer { vs_files_stamp_some(files, $0.baseAddress, Int32($0.count), out) }
        }
        return stamps
    }

    /// The stamps of every file, in order, on `threads` threads.
    func stamps(threads: Int) -> [FileStamp] {
        guard root >= 0, count > 0 else { return [FileStamp](repeating: .unreadable, count: count) }
        // Not initialized here: the C side writes every one.
        var stamps = [FileStamp](unsafeUninitializedCapacity: count) { _, n in n = count }
        precondition(MemoryLayout<FileStamp>.stride == MemoryLayout<vs_stamp>.stride)
        stamps.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress!.assumingMemoryBound(to: vs_stamp.self)
            vs_files_stamps(files, 0, Int32(count), out, Int32(threads))
        }
        return stamps
    }
}
