import Foundation
import VaultCore

/// Turns images that point into the vault's `attachments/` folder into `data:`
/// URLs, so an exported HTML file shows them wherever it is opened.
///
/// A target is read relative to the file that links it (`../attachments/ab12.png`
/// from `rooms/x.md`), then relative to the vault (`attachments/ab12.png`); it is
/// embedded only when it lands inside `attachments/`, is a regular file reached
/// through no symbolic link, and its bytes are the image its extension names. Anything else (web addresses, other
/// folders) is left as written. A missing attachment is left as written too, and
/// reported as a warning.
struct AttachmentEmbedder {
    /// Absolute path of the vault, or `nil` to embed nothing.
    let vaultRoot: String?
    /// A word that cannot occur in a person's text, for placeholders in cmark's output.
    private let nonce = "vault-attachment-" + UUID().uuidString.lowercased()
    private(set) var embedded: [(placeholder: String, dataURL: String)] = []
    private(set) var warnings: [ExportWarning] = []
    /// Data URLs already made, by file: an image shown twice is read once.
    private var cache: [String: String] = [:]

    init(vaultRoot: String?) {
        self.vaultRoot = vaultRoot
    }

    /// MIME types of the image extensions that are embedded.
    static let imageTypes: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "avif": "image/avif", "bmp": "image/bmp", "ico": "image/x-icon",
    ]

    /// The placeholder to put in place of `target` (an image's target in `itemPath`), or
    /// `nil` to leave it as it is.
    mutating func placeholder(for target: String, in itemPath: String) -> String? {
        guard let root = vaultRoot, let file = attachmentFile(target, itemPath: itemPath, root: root) else {
            return nil
        }
        let name = file.split(separator: "/").last ?? ""
        let ext = name.contains(".") ? (name.split(separator: ".").last ?? "").lowercased() : ""
        guard let mime = AttachmentEmbedder.imageTypes[ext] else {
            warnings.append(
                ExportWarning(
                    path: itemPath,
                    message:
                        "\(target) is not an image vault knows (\(ext.isEmpty ? "no extension" : "." + ext));"
                        + " left as a link"
                ))
            return nil
        }
        let dataURL: String
        if let cached = cache[file] {
            dataURL = cached
        } else {
            let shown = file.hasPrefix(root + "/") ? String(file.dropFirst(root.count + 1)) : file
            // Only a regular file, reached through no link, whose bytes are the image it claims.
            if let link = Vault.symbolicLink(in: root, on: shown) {
                warnings.append(
                    ExportWarning(
                        path: itemPath,
                        message: "\(link.path) is a symbolic link; \(target) is not embedded, left as a link"))
                return nil
            }
            let bytes: [UInt8]
            do {
                bytes = try FileIO.readWithoutFollowing(file)
            } catch {
                let why = FileIO.exists(file) ? "cannot be read (\(error))" : "is missing"
                warnings.append(
                    ExportWarning(path: itemPath, message: "the attachment \(shown) (\(target)) \(why); left as a link"))
                return nil
            }
            guard let sniffed = AttachmentEmbedder.imageType(of: bytes), sniffed == mime
            else {
                warnings.append(
                    ExportWarning(
                        path: itemPath,
                        message: "the attachment \(shown) is not the .\(ext) image its name says; left as a link"))
                return nil
            }
            dataURL = "data:\(sniffed);base64," + Data(bytes).base64EncodedString()
            cache[file] = dataURL
        }
        let placeholder = "\(nonce)-\(embedded.count)"
        embedded.append((placeholder, dataURL))
        return placeholder
    }

    /// The image type `bytes` start with (their magic numbers; SVG: XML text with an `<svg`
    /// element near its start), or nil when they are no image vault embeds.
    static func imageType(of bytes: [UInt8]) -> String? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("ftypavif".utf8), at: 4) || starts(Array("ftypavis".utf8), at: 4) { return "image/avif" }
        if starts(Array("BM".utf8)) { return "image/bmp" }
        if starts([0, 0, 1, 0]) { return "image/x-icon" }
        let head = String(decoding: bytes.prefix(1024), as: UTF8.self).lowercased()
        if head.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<"), head.contains("<svg") {
            return "image/svg+xml"
        }
        return nil
    }

    /// `html` with every placeholder cmark wrote as an image source replaced by its data URL.
    func fillingIn(_ html: String) -> String {
        var out = html
        for (placeholder, dataURL) in embedded {
            out = out.replacingOccurrences(of: "src=\"\(placeholder)\"", with: "src=\"\(dataURL)\"")
        }
        return out
    }

    /// The absolute path in `attachments/` that `target` names, or `nil` when it names none.
    private func attachmentFile(_ target: String, itemPath: String, root: String) -> String? {
        var path = target
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<cut]) }
        path = path.removingPercentEncoding ?? path
        // `%00` and other control characters: no file is named so (a NUL would cut the path).
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return nil }
        // Web addresses (`https:`, `data:`) and absolute paths are not attachments.
        if path.isEmpty || path.hasPrefix("/") { return nil }
        if let colon = path.firstIndex(of: ":"),
            path[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        {
            return nil
        }
        let folder = root + "/" + VaultPath.attachments + "/"
        // Relative to the linking file, relative to the vault, and (forgiving a wrong
        // number of `../`) the part from `attachments/` on.
        var candidates = [
            Vault.absolute(path, from: FileIO.parent(of: root + "/" + itemPath)), Vault.absolute(path, from: root),
        ]
        var rest = Substring(path)
        while rest.hasPrefix("./") || rest.hasPrefix("../") { rest = rest.drop { $0 == "." }.dropFirst() }
        candidates.append(Vault.absolute(String(rest), from: root))
        // Links are refused when the file is read (`placeholder(for:in:)`).
        return candidates.first(where: { $0.hasPrefix(folder) })
    }
}

/// Something an export could not do, which did not stop it (a missing attachment).
public struct ExportWarning: Sendable, Hashable, CustomStringConvertible {
    /// The item (path relative to the vault) the problem is in.
    public var path: String
    public var message: String

    public var description: String { "\(path): \(message)" }
}
