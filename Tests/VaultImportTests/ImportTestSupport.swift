import Foundation
import Testing
import VaultCore
import VaultImport
import VaultTestSupport

/// The `ImportProblem` `body` throws (nil when it throws none, or another error), its file with
/// `folder` replaced by `EXPORT`, so a test can compare the whole message.
func importProblem(in folder: String? = nil, _ body: () throws(VaultError) -> Void) -> String? {
    do {
        try body()
        return nil
    } catch {
        guard case .importing(let problem) = error else { return "not an import problem: \(error)" }
        var text = problem.description
        if let folder { text = text.replacingOccurrences(of: folder, with: "EXPORT") }
        return text
    }
}

/// Every item `reader` gives for `paths`.
func readAll(_ reader: some ImportReader, _ paths: [String], since: Timestamp? = nil) throws(VaultError)
    -> [ImportedConversation]
{
    var out: [ImportedConversation] = []
    try reader.read(paths, since: since) { item throws(VaultError) in
        if case .conversation(let conversation) = item { out.append(conversation) }
    }
    return out
}

/// One line per message: `id role[/kind] [model] time: body [attachments] {unknown blocks}`, for exact
/// comparisons (a missing file: `[kind name missing pointer]`).
func lines(_ messages: [ImportedMessage]) -> [String] {
    messages.map { m in
        var line = m.sourceID + " " + m.role.rawValue
        if let kind = m.kind { line += "/" + kind.rawValue }
        if let model = m.model { line += " " + model }
        line += " " + (m.time?.text ?? "-") + ": " + m.body
        for a in m.attachments { line += a.missing.map { " [\($0.kind) \(a.name) missing \($0.pointer)]" } ?? " [\(a.name) \(a.bytes.count)]" }
        for type in m.unknownBlocks { line += " {unknown \(type)}" }
        return line
    }
}

/// How many times `token` is in the vault's files (not `.git/`, not `.vault/`).
func occurrences(_ token: String, in world: HostileWorld) throws -> Int {
    try world.state().files.values.reduce(0) { n, bytes in
        n + String(decoding: bytes, as: UTF8.self).components(separatedBy: token).count - 1
    }
}

/// Each token once in the vault; a second import commits nothing, changes no file and
/// counts the same.
func expectWhole(
    _ tokens: [String], _ world: HostileWorld, _ reader: some ImportReader, _ paths: [String],
    first: Importing.Report, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    for token in tokens {
        #expect(try occurrences(token, in: world) == 1, "\(token)", sourceLocation: sourceLocation)
    }
    #expect(try git(["status", "--porcelain"], in: world.dir.path) == "", sourceLocation: sourceLocation)
    let before = try world.state()
    let again = try Importing(vault: world.vault).run(reader, paths: paths)
    #expect(!again.committed && again.roomsNew == 0 && again.entriesNew == 0 && again.messagesAdded == 0,
            sourceLocation: sourceLocation)
    #expect(again.missingFiles == first.missingFiles && again.unknownBlocks == first.unknownBlocks,
            sourceLocation: sourceLocation)
    #expect(try world.state() == before, sourceLocation: sourceLocation)
}

/// Makes `zip` from `files` (name → bytes) with Python's zipfile: `deflate` or stored, zip64
/// records when `zip64`.
func makeZip(_ zip: String, _ files: [(String, [UInt8])], deflate: Bool = true, zip64: Bool = false) throws {
    let folder = TemporaryDirectory("vault-zip-src")
    var script = "import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1],'w',\(deflate ? "zipfile.ZIP_DEFLATED" : "zipfile.ZIP_STORED"))\n"
    for (k, (name, bytes)) in files.enumerated() {
        try folder.write("f\(k)", bytes)
        script += "with z.open(\(pythonString(name)),'w',force_zip64=\(zip64 ? "True" : "False")) as w: w.write(open(sys.argv[2]+'/f\(k)','rb').read())\n"
    }
    script += "z.close()\n"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, zip, folder.path]
    let result = try run(process)
    guard result.status == 0 else { throw FixtureError("python3 zipfile failed: \(result.stderr)") }
}

private func pythonString(_ s: String) -> String {
    "'" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
}
