import Dispatch
import Foundation

extension Array where Element: Sendable {
    /// `map(transform)` on every core: element `i`'s result at `i`, whatever order the workers
    /// finish in, so the result is the one `map` gives. For work that is pure per element (a
    /// room parsed, a file merged); `transform` must not touch shared state.
    ///
    ///     let rooms = blobs.mapOnEveryCore { try? RoomFile(parsing: $0.bytes, path: $0.path) }
    package func mapOnEveryCore<T: Sendable>(_ transform: @Sendable (Element) -> T) -> [T] {
        guard count > 1 else { return map(transform) }
        var out = [T?](repeating: nil, count: count)
        let workers = Swift.min(count, Swift.max(1, ProcessInfo.processInfo.activeProcessorCount))
        out.withUnsafeMutableBufferPointer { slots in
            // Each index is written by one worker only.
            nonisolated(unsafe) let base = slots.baseAddress!
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var i = worker
                while i < self.count {
                    base[i] = transform(self[i])
                    i += workers
                }
            }
        }
        return out.map { $0! }
    }
}
