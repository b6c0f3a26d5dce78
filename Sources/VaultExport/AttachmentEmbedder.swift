import Foundation
import VaultCore

/// Turns images that point into the vault's `attachments/` folder into `data:`
/// URLs, so an exported HTML file shows them wherever it is opened.
///
/// A target is read relative to the file that links it (`../attachments/ab12.png`
/// from `rooms/x.md`), then relative to the vault (`attachments/ab12.png`); it is
/// embedded only when it lands inside `attachments/` (after following symbolic
/// links) and has an image extension. Anything else (web addresses, other
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
            guard let bytes = try? FileIO.read(file) else {
                let shown = file.hasPrefix(root + "/") ? String(file.dropFirst(root.count + 1)) : file
                warnings.append(
                    ExportWarning(
                        path: itemPath, message: "the attachment \(shown) (\(target)) is missing; left as a link"))
                return nil
            }
            dataURL = "data:\(mime);base64," + Data(bytes).base64EncodedString()
            cache[file] = dataURL
        }
        let placeholder = "\(nonce)-\(embedded.count)"
        embedded.append((placeholder, dataURL))
        return placeholder
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
        guard let candidate = candidates.first(where: { $0.hasPrefix(folder) }) else { return nil }
        // A symbolic link must not carry the export outside the folder.
        if FileIO.exists(candidate) {
            let real = URL(fileURLWithPath: candidate).resolvingSymlinksInPath().path
            let realFolder =
                URL(fileURLWithPath: root + "/" + VaultPath.attachments).resolvingSymlinksInPath().path + "/"
            guard real.hasPrefix(realFolder) else { return nil }
        }
        return candidate
    }
}

/// Something an export could not do, which did not stop it (a missing attachment).
public struct ExportWarning: Sendable, Hashable, CustomStringConvertible {
    /// The item (path relative to the vault) the problem is in.
    public var path: String
    public var message: String

    public var description: String { "\(path): \(message)" }
}
