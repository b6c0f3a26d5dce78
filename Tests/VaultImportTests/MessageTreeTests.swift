import Testing
import VaultCore
import VaultTestSupport

@testable import VaultImport

@Suite struct MessageTreeTests {
    /// Random trees (some nodes empty, like ChatGPT's root): every message comes out exactly once,
    /// the transcript is the path to the active leaf, and each branch forks after a message that
    /// came out before it (the transcript's or an earlier branch's) and is its first node's
    /// nearest ancestor with a message.
    @Test func randomTreesLoseAndRepeatNothing() throws {
        var random = SeededRandom(seed: 11)
        for round in 0..<300 {
            var tree = MessageTree()
            var parents: [String: String?] = [:]
            var messageNode: [String: String] = [:]
            let count = 1 + Int(random.next() % 30)
            var expected: [String] = []
            for k in 0..<count {
                let id = "n\(k)"
                let parent: String? = k == 0 ? nil : "n\(Int(random.next() % UInt64(k)))"
                let empty = random.next() % 5 == 0
                let messages = empty ? [] : (0..<(1 + Int(random.next() % 2))).map { j in
                    ImportedMessage(sourceID: "\(id).\(j)", role: .user, time: nil, body: "\(id) \(j)")
                }
                for m in messages { messageNode[m.sourceID] = id }
                expected += messages.map(\.sourceID)
                parents[id] = parent
                tree.add(id, parent: parent, messages: messages)
            }
            let leaves = tree.leaves()
            let active = leaves[Int(random.next() % UInt64(leaves.count))]
            let (transcript, branches) = try tree.split(activeLeaf: active)
            let all = transcript.map(\.sourceID) + branches.flatMap { $0.messages.map(\.sourceID) }
            #expect(all.sorted() == expected.sorted(), "round \(round)")
            // The transcript: the path's messages in order.
            var path: [String] = []
            var at: String? = active
            while let id = at { path.insert(id, at: 0); at = parents[id]! }
            #expect(transcript.map(\.sourceID) == path.flatMap { id in expected.filter { messageNode[$0] == id } })
            var seen = Set(transcript.map(\.sourceID))
            for branch in branches {
                let first = messageNode[branch.messages[0].sourceID]!
                // The nearest ancestor of the first node (above the branch's own empty nodes) with a message.
                var above = parents[first]!
                var nearest: String?
                while let id = above {
                    if let last = expected.last(where: { messageNode[$0] == id }), !branch.messages.contains(where: { messageNode[$0.sourceID] == id }) {
                        nearest = last
                        break
                    }
                    above = parents[id]!
                }
                #expect(branch.forkedAfter == nearest, "round \(round)")
                if let fork = branch.forkedAfter { #expect(seen.contains(fork), "round \(round)") }
                seen.formUnion(branch.messages.map(\.sourceID))
            }
        }
    }
}
