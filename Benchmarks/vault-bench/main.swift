// vault-bench: parse throughput of the vault format, on one core.
//
//   vault-bench parse VAULT_DIR [--rounds N]
//
// Loads every room and diary file into memory first (so the disk is not measured),
// then parses all of them N times on the calling thread and prints the median
// throughput in MB/s, with the minimum and maximum.
import Foundation
import VaultCore

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data("vault-bench: \(text)\n".utf8))
    exit(2)
}

var args = Array(CommandLine.arguments.dropFirst())
guard args.first == "parse", args.count >= 2 else { fail("usage: vault-bench parse VAULT_DIR [--rounds N]") }
let root = Vault.absolute(args[1], from: FileManager.default.currentDirectoryPath)
var rounds = 5
if let i = args.firstIndex(of: "--rounds"), i + 1 < args.count, let n = Int(args[i + 1]) { rounds = n }

let vault: Vault
do { vault = try Vault(root: root) } catch { fail("\(error)") }
let rooms = try vault.roomPaths().map { ($0, try FileIO.read(vault.absolute($0))) }
let entries = try vault.diaryPaths().map { ($0, try FileIO.read(vault.absolute($0))) }
let roomBytes = rooms.reduce(0) { $0 + $1.1.count }
let entryBytes = entries.reduce(0) { $0 + $1.1.count }
let total = Double(roomBytes + entryBytes)

func measure(_ body: () throws -> Int) rethrows -> (seconds: Double, count: Int) {
    let start = DispatchTime.now().uptimeNanoseconds
    let n = try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, n)
}

var roomRates: [Double] = []
var entryRates: [Double] = []
var allRates: [Double] = []
var messages = 0
for _ in 0..<rounds {
    let r = try measure {
        var n = 0
        for (path, bytes) in rooms { n += try RoomFile(parsing: bytes, path: path).messages.count }
        return n
    }
    let e = try measure {
        var n = 0
        for (path, bytes) in entries { n += try DiaryFile(parsing: bytes, path: path).day != nil ? 1 : 0 }
        return n
    }
    messages = r.count
    roomRates.append(Double(roomBytes) / r.seconds / 1e6)
    entryRates.append(Double(entryBytes) / e.seconds / 1e6)
    allRates.append(total / (r.seconds + e.seconds) / 1e6)
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}
func line(_ name: String, _ xs: [Double]) -> String {
    String(format: "%-14@ median %7.1f MB/s  (min %.1f, max %.1f, %d rounds)", name as NSString, median(xs), xs.min()!, xs.max()!, xs.count)
}
print(String(format: "vault: %d rooms (%.1f MB, %d messages), %d diary entries (%.1f MB)", rooms.count, Double(roomBytes) / 1e6, messages, entries.count, Double(entryBytes) / 1e6))
print(line("rooms", roomRates))
print(line("diary", entryRates))
print(line("all files", allRates))
