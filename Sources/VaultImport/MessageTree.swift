import VaultCore

/// A conversation kept as a tree of messages (ChatGPT's `mapping`, Claude's
/// `parent_message_uuid`), split into the transcript and its other branches.
///
/// The transcript is the path from the root to the active leaf. Every other leaf, visited
/// depth first in the children's order, gives one branch: the nodes on its path that no earlier
/// path (the transcript's or an earlier branch's) holds; it forked after the last message of
/// the deepest node it shares with them. Nodes without messages (ChatGPT's empty root, an empty
/// system message) are part of the tree's shape but give nothing: a branch forked at one forked
/// after the nearest message above it.
struct MessageTree {
    struct Node {
        var parent: String?
        /// In the source's order; nil: made from the other nodes' parents, in their order.
        var children: [String]?
        var messages: [ImportedMessage]
    }

    private(set) var nodes: [String: Node] = [:]
    private var order: [String] = []

    mutating func add(_ id: String, parent: String?, children: [String]? = nil, messages: [ImportedMessage]) {
        if nodes[id] == nil { order.append(id) }
        nodes[id] = Node(parent: parent, children: children, messages: messages)
    }

    /// The leaves, in depth-first order from the roots (the ids of nodes with no children).
    func leaves() -> [String] {
        let children = childLists()
        var out: [String] = []
        var seen = Set<String>()
        var stack = roots().reversed().map { $0 }
        while let id = stack.popLast() {
            guard seen.insert(id).inserted else { continue }
            let kids = (children[id] ?? []).filter { nodes[$0] != nil }
            if kids.isEmpty { out.append(id) }
            stack.append(contentsOf: kids.reversed())
        }
        return out
    }

    /// The transcript (the path to `activeLeaf`) and the branches.
    ///
    /// - Throws: a text for the caller's `ImportProblem` when the parents form a cycle.
    func split(activeLeaf: String) throws(TreeProblem) -> (transcript: [ImportedMessage], branches: [ImportedBranch]) {
        let path = try pathFromRoot(to: activeLeaf)
        var covered = Set(path)
        let transcript = path.flatMap { nodes[$0]!.messages }
        var branches: [ImportedBranch] = []
        for leaf in leaves() where !covered.contains(leaf) {
            var fresh: [String] = []
            var at: String? = leaf
            var steps = 0
            while let id = at, !covered.contains(id), let node = nodes[id] {
                fresh.append(id)
                at = node.parent
                steps += 1
                if steps > nodes.count { throw TreeProblem(node: leaf, text: "its parents form a cycle") }
            }
            let messages = fresh.reversed().flatMap { nodes[$0]!.messages }
            covered.formUnion(fresh)
            guard !messages.isEmpty else { continue }
            branches.append(ImportedBranch(forkedAfter: try lastMessage(atOrAbove: at), messages: messages))
        }
        return (transcript, branches)
    }

    /// The node ids from the root down to `leaf`.
    func pathFromRoot(to leaf: String) throws(TreeProblem) -> [String] {
        var path: [String] = []
        var at: String? = leaf
        while let id = at, let node = nodes[id] {
            path.append(id)
            if path.count > nodes.count { throw TreeProblem(node: leaf, text: "its parents form a cycle") }
            at = node.parent
        }
        return path.reversed()
    }

    /// The id of the last message of `id` or of the nearest node above it that has one.
    private func lastMessage(atOrAbove id: String?) throws(TreeProblem) -> String? {
        var at = id
        var steps = 0
        while let current = at, let node = nodes[current] {
            if let last = node.messages.last { return last.sourceID }
            at = node.parent
            steps += 1
            if steps > nodes.count { throw TreeProblem(node: current, text: "its parents form a cycle") }
        }
        return nil
    }

    private func roots() -> [String] {
        order.filter { id in nodes[id]!.parent.map { nodes[$0] == nil } ?? true }
    }

    private func childLists() -> [String: [String]] {
        var out: [String: [String]] = [:]
        var madeFromParents: [String: [String]] = [:]
        for id in order {
            let node = nodes[id]!
            if let children = node.children { out[id] = children }
            if let parent = node.parent { madeFromParents[parent, default: []].append(id) }
        }
        for (parent, kids) in madeFromParents where out[parent] == nil { out[parent] = kids }
        // A child the parent's list leaves out still belongs to the tree.
        for (parent, kids) in madeFromParents {
            let listed = Set(out[parent] ?? [])
            for kid in kids where !listed.contains(kid) { out[parent, default: []].append(kid) }
        }
        return out
    }
}

/// A tree that is not one (a cycle of parents), at `node`.
struct TreeProblem: Error {
    var node: String
    var text: String
}
