import ArgumentParser
import Foundation
import VaultCore
import VaultKit

extension VaultCommand {
    struct Export: VaultRunnable {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export rooms and diary entries as one Markdown, HTML or JSON document to share.",
            discussion: """
                Name items (rooms and diary entries can be mixed), or export the diary with --diary \
                (oldest entry first, optionally --since, --until, --tag), or one room with --room. \
                HTML pages stand alone: styles inline, images from attachments/ embedded. \
                Examples: vault export 부산 -o busan.html; vault export --diary --since 2026-11-01 --format json
                """)

        @OptionGroup var location: VaultLocation
        @Argument(
            help: "Rooms and diary entries: paths, room slugs or titles, diary dates (2026-11-21) or file names.",
            completion: .items)
        var items: [String] = []
        @Flag(help: "Export the diary, oldest entry first.") var diary = false
        @OptionGroup var dates: DateRangeOptions
        @Option(help: "With --diary: only entries with this tag.") var tag: String?
        @Option(help: ArgumentHelp("Export one room.", valueName: "ROOM"), completion: .rooms)
        var room: String?
        @Option(help: ArgumentHelp("md, html or json (default: from -o's extension, else md).", valueName: "FORMAT"))
        var format: String?
        @Option(
            name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Write to FILE instead of standard output (`-`: standard output).", valueName: "FILE"))
        var output: String?
        @Flag(help: "Replace FILE when it exists.") var force = false

        func execute() throws {
            let vault = try location.open()
            let kind = try chosenFormat()
            // `-o -` is standard output, as everywhere a file is written.
            let file = output == "-" ? nil : output
            let destination = try file.map { o in try Export.checkedDestination(o, vault: vault, force: force) }
            let progress = ProgressLine()
            defer { progress.finish() }
            let selected = try selectedItems(vault, progress: progress)
            for case .room(let room) in selected {
                for problem in room.unreadHeaders {
                    Terminal.warning(
                        "\(problem); exported as text, marked ⚠️ (the rest of the room is read as usual)")
                }
            }
            var exporter = Exporter(vault: vault)
            exporter.onProgress = progress.handler
            let bytes: Data
            switch kind {
            case .markdown:
                bytes = Data(exporter.markdown(selected).utf8)
            case .json:
                bytes = try exporter.json(selected)
            case .html:
                let page = exporter.html(
                    selected, title: diary ? diaryTitle(selected, words: ListingWords.of(vault.config.locale)) : nil)
                progress.finish()
                for warning in page.warnings { Terminal.warning(warning.description) }
                bytes = Data(page.html.utf8)
            }
            progress.finish()
            if let destination {
                // Checked again right before writing: refusing to overwrite must hold.
                if !force, FileIO.exists(destination) { throw CommandError.outputExists(output ?? destination) }
                try FileIO.write(Array(bytes), to: destination)
            } else {
                Terminal.document(bytes)
            }
        }

        enum Kind { case markdown, html, json }

        /// `--format`, else the output file's extension, else Markdown.
        func chosenFormat() throws(UsageError) -> Kind {
            if let format {
                switch format.lowercased() {
                case "md", "markdown": return .markdown
                case "html", "htm": return .html
                case "json": return .json
                default: throw UsageError.unknownFormat(format)
                }
            }
            switch output.map({ ($0 as NSString).pathExtension.lowercased() }) {
            case "html", "htm": return .html
            case "json": return .json
            default: return .markdown
            }
        }

        /// What to export, in order, each item once.
        func selectedItems(_ vault: Vault, progress: ProgressLine? = nil) throws -> [ExportItem] {
            let sources = (items.isEmpty ? 0 : 1) + (diary ? 1 : 0) + (room == nil ? 0 : 1)
            guard sources == 1 else {
                throw sources == 0 ? UsageError.nothingToExport : UsageError.severalExportSources
            }
            if !diary, dates.since != nil || dates.until != nil || tag != nil {
                throw UsageError.diaryFilterWithoutDiary
            }
            let here = FileManager.default.currentDirectoryPath
            if let room {
                return [try ExportItem(.room(try vault.resolveRoom(room, workingDirectory: here)), in: vault)]
            }
            if diary { return try diaryEntries(vault, progress: progress) }
            var seen: Set<VaultItem> = []
            var out: [ExportItem] = []
            for name in items {
                let item = try vault.resolve(name, workingDirectory: here)
                if seen.insert(item).inserted { out.append(try ExportItem(item, in: vault)) }
            }
            return out
        }

        /// The diary entries chosen by --since, --until and --tag, oldest first.
        func diaryEntries(_ vault: Vault, progress: ProgressLine? = nil) throws -> [ExportItem] {
            let query = try dates.query(tag: tag, in: vault.config.timeZone)
            if let from = query.from, let to = query.to, from > to {
                throw UsageError.sinceAfterUntil(since: "\(from)", until: "\(to)")
            }
            let chosen = try query.entriesOldestFirst(in: vault, cancellation: Termination.cancellation)
            guard !chosen.isEmpty else { throw CommandError.noDiaryEntries(query.filters) }
            var out: [ExportItem] = []
            for (k, e) in chosen.enumerated() {
                out.append(try ExportItem(.diaryEntry(e.path), in: vault, day: e.date))
                progress?.report(ProgressEvent("reading", done: k + 1, of: chosen.count, unit: "entries"))
            }
            return out
        }

        /// `Diary · 2026-08-15 – 2026-11-21` (`일기 · …`: the vault's language).
        func diaryTitle(_ items: [ExportItem], words: ListingWords) -> String {
            let days = items.compactMap { item -> LocalDate? in
                if case .diaryEntry(let entry, let day) = item { return entry.day ?? day }
                return nil
            }
            guard let first = days.min(), let last = days.max() else { return words.diary }
            return words.diary + (first == last ? " · \(first)" : " · \(first) – \(last)")
        }

        /// The absolute path to write, after the checks that keep an export from doing harm:
        /// never inside a `.git` folder, never a room or diary file of the vault, never over
        /// an existing file without `--force`.
        static func checkedDestination(_ path: String, vault: Vault, force: Bool) throws -> String {
            let target = Vault.absolute(path, from: FileManager.default.currentDirectoryPath)
            let folder = FileIO.parent(of: target)
            guard FileIO.isDirectory(folder) else {
                throw VaultError.io(path: path, operation: "write", reason: "the folder \(folder) does not exist")
            }
            // The folder as the system sees it (symbolic links followed), and as written.
            let real =
                URL(fileURLWithPath: folder).resolvingSymlinksInPath().path + "/"
                + (target.split(separator: "/").last ?? "")
            for candidate in [target, real] where candidate.split(separator: "/").contains(".git") {
                throw CommandError.outputInGitFolder(path)
            }
            for area in [VaultPath.rooms, VaultPath.diary] {
                let inside = [target, real].contains { $0.hasPrefix(vault.root + "/" + area + "/") }
                if inside, target.hasSuffix(".md") {
                    throw CommandError.outputInVault(path, area: area)
                }
            }
            if FileIO.isDirectory(target) {
                throw VaultError.io(path: path, operation: "write", reason: "it is a folder; name a file")
            }
            if !force, FileIO.exists(target) { throw CommandError.outputExists(path) }
            return target
        }
    }
}
