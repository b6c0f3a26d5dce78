import Foundation
import Testing
import VaultCore
import VaultTestSupport

@testable import VaultImport

@Suite struct GeneratedExportTests {
    /// Benchmarks/generate-chatgpt-export.py's export, split and zipped, read whole: every message
    /// it says it wrote comes back once (transcripts and branches), every image found.
    @Test func theBenchmarkGeneratorsExportReadsWhole() throws {
        let folder = TemporaryDirectory("vault-generated")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Project.root + "/Benchmarks/generate-chatgpt-export.py", folder.path + "/export",
            "--conversations", "40", "--messages", "1500", "--split", "3", "--images", "0.2", "--zip", "--seed", "5",
        ]
        let result = try run(process)
        try #require(result.status == 0, "\(result.stderr)")
        // "40 conversations, N messages, K images in …"
        let words = result.stdout.split(separator: " ")
        let messages = Int(words[2])!
        let images = Int(words[4])!
        #expect(images > 0)
        for path in [folder.path + "/export", folder.path + "/export.zip"] {
            let conversations = try readAll(ChatGPTReader(), [path])
            #expect(conversations.count == 40)
            #expect(Set(conversations.map(\.sourceID)).count == 40)
            let all = conversations.flatMap { $0.messages + $0.branches.flatMap(\.messages) }
            #expect(all.count == messages)
            #expect(all.reduce(0) { $0 + $1.attachments.count } == images)
            #expect(conversations.contains { !$0.branches.isEmpty })
            #expect(all.contains { $0.kind == .thoughts } && all.contains { $0.kind == .toolResult })
            // Times go forward along each transcript (null ones aside).
            for c in conversations {
                let times = c.messages.compactMap(\.time)
                #expect(times == times.sorted())
            }
        }
    }

    @Test func imagesAreFoundByTheIdTheirNameBeginsWith() {
        let index = ImageIndex(files: [
            "file-AbC-photo.png", "dalle-generations/file-XyZ-1f2e.webp", "user-1/file_00ab12-9c.jpeg", "note-file-QQ.png",
        ])
        #expect(index.file(for: "file-AbC") == "file-AbC-photo.png")
        #expect(index.file(for: "file-XyZ") == "dalle-generations/file-XyZ-1f2e.webp")
        #expect(index.file(for: "file_00ab12") == "user-1/file_00ab12-9c.jpeg")
        #expect(index.file(for: "file-QQ") == "note-file-QQ.png")
        #expect(index.file(for: "file-Ab") == "file-AbC-photo.png")
        #expect(index.file(for: "file-None") == nil)
        #expect(index.file(for: "") == nil)
    }
}
