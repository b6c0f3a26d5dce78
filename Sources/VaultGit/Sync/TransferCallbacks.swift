import CGit2
import VaultCore

/// The one payload of libgit2's callbacks during a fetch, a push or a clone
/// (`LibGit2Transport`): what the remote refused (`push_update_reference`) and, when the caller
/// asked for progress, libgit2's counts as `ProgressEvent`s, the same steps git's progress
/// gives (`GitProgressReader`):
///
/// - `transfer_progress` (a fetch's indexer): `receiving` objects with the bytes, then
///   `resolving` deltas once every object is in;
/// - `push_transfer_progress`: `sending` objects; `pack_progress` while the pack is made:
///   `compressing` objects (its delta search);
/// - a clone's checkout (`git_checkout_options.progress_cb`): `checking out` files.
///
/// libgit2 calls them on the thread running the fetch, push or clone (a push's pack is built
/// with one thread: `pb_parallelism` 1), so the counts need no lock. An event is reported only
/// when its count moved. The caller keeps the object alive across the libgit2 call
/// (`withExtendedLifetime`): libgit2 holds it only as an unretained pointer. Without
/// progress no progress callback is set, and libgit2 counts nothing for vault.
final class TransferCallbacks {
    let progress: ProgressHandler?
    /// Refs the remote refused, with its reason (`push_update_reference`).
    var refusals: [(ref: String, status: String)] = []
    /// The last count reported for each action, so that an unchanged count is not reported again.
    private var reported: [String: Int] = [:]

    init(progress: ProgressHandler?) {
        self.progress = progress
    }

    /// This object as libgit2's callback payload (unretained).
    private var payload: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The callbacks of a fetch or a push: the payload always, the progress callbacks with progress.
    func install(in callbacks: inout git_remote_callbacks) {
        callbacks.payload = payload
        guard progress != nil else { return }
        callbacks.transfer_progress = { stats, payload in
            guard let stats, let payload else { return 0 }
            TransferCallbacks.from(payload).fetched(stats.pointee)
            return 0
        }
        // Without its bytes: libgit2 reaches only remotes on this machine here, and its local push
        // writes the pack straight into the remote's folder, counting a few bytes at most.
        callbacks.push_transfer_progress = { current, total, _, payload in
            guard let payload else { return 0 }
            TransferCallbacks.from(payload).step("sending", Int(current), of: Int(total), "objects")
            return 0
        }
        callbacks.pack_progress = { stage, current, total, payload in
            guard let payload, stage == Int32(GIT_PACKBUILDER_DELTAFICATION.rawValue) else { return 0 }
            TransferCallbacks.from(payload).step("compressing", Int(current), of: Int(total), "objects")
            return 0
        }
    }

    /// A clone's checkout reports the files it writes, with progress.
    func install(in checkout: inout git_checkout_options) {
        guard progress != nil else { return }
        checkout.progress_payload = payload
        checkout.progress_cb = { _, completed, total, payload in
            guard let payload else { return }
            TransferCallbacks.from(payload).step("checking out", Int(completed), of: Int(total), "files")
        }
    }

    /// The transfer is over: `ProgressEvent.ended`, with progress.
    func end() {
        progress?(.ended)
    }

    private static func from(_ payload: UnsafeMutableRawPointer) -> TransferCallbacks {
        Unmanaged<TransferCallbacks>.fromOpaque(payload).takeUnretainedValue()
    }

    /// The indexer's counts: objects received until all are in, then the deltas resolved.
    private func fetched(_ stats: git_indexer_progress) {
        let total = Int(stats.total_objects)
        step("receiving", Int(stats.received_objects), of: total, "objects", bytes: Int(stats.received_bytes))
        if total > 0, Int(stats.received_objects) == total {
            step("resolving", Int(stats.indexed_deltas), of: Int(stats.total_deltas), "deltas")
        }
    }

    /// Reports `done` of `total` for `action` when there is something to count and the count moved.
    private func step(_ action: String, _ done: Int, of total: Int, _ unit: String, bytes: Int? = nil) {
        guard let progress, total > 0, reported[action] != done else { return }
        reported[action] = done
        progress(ProgressEvent(action, done: done, of: total, unit: unit, bytes: bytes))
    }
}
