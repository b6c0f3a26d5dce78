// vault-import-bench: how fast the import readers read an export, reading only (nothing is
// written; the end-to-end `vault import` benchmark is Benchmarks/import-bench.sh's).
//
//   vault-import-bench chatgpt|claude PATH… [--rounds N]
//
// Reads PATH (an export's zip, folder or conversations file) N times and prints, per round,
// the conversations, messages (transcripts and branches), branches and attachment bytes read,
// the time, and at the end the median time and the process's peak resident memory.
import Foundation
import VaultCore
import VaultImport

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data("vault-import-bench: \(text)\n".utf8))
    exit(2)
}

var args = Array(CommandLine.arguments.dropFirst())
var rounds = 3
if let i = args.firstIndex(of: "--rounds"), i + 1 < args.count, let n = Int(args[i + 1]) {
    rounds = n
    args.removeSubrange(i...(i + 1))
}
guard args.count >= 2, let source = ImportSource(rawValue: args[0]), source == .chatgpt || source == .claude else {
    fail("usage: vault-import-bench chatgpt|claude PATH… [--rounds N]")
}
let paths = Array(args.dropFirst())

var times: [Double] = []
for round in 1...rounds {
    var conversations = 0
    var messages = 0
    var branches = 0
    var attachmentBytes = 0
    let start = DispatchTime.now().uptimeNanoseconds
    do {
        let emit: (ImportedItem) throws(VaultError) -> Void = { item in
            guard case .conversation(let c) = item else { return }
            conversations += 1
            branches += c.branches.count
            messages += c.messages.count + c.branches.reduce(0) { $0 + $1.messages.count }
            for m in c.messages { attachmentBytes += m.attachments.reduce(0) { $0 + $1.bytes.count } }
        }
        if source == .chatgpt {
            try ChatGPTReader().read(paths, since: nil, emit: emit)
        } else {
            try ClaudeReader().read(paths, since: nil, emit: emit)
        }
    } catch {
        fail("\(error)")
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    times.append(seconds)
    print(
        "round \(round): \(conversations) conversations, \(messages) messages, \(branches) branches, "
            + "\(attachmentBytes) attachment bytes in \(String(format: "%.2f", seconds)) s")
}
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
let sorted = times.sorted()
print(String(format: "median %.2f s, peak RSS %.0f MB", sorted[sorted.count / 2], Double(usage.ru_maxrss) / 1024))
