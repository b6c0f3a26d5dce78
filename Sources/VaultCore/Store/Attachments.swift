import Foundation

/// Files attached to messages, stored once by content in `attachments/<sha256>.<ext>`.
package enum Attachments {
    /// Image types sent to models as `data:` URLs, by file extension.
    package static let imageTypes: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
    ]

    /// Copies `file` into the vault's `attachments/` (if the same bytes are not there yet) and
    /// returns its path in the vault and the Markdown that links it from a room.
    package static func store(_ file: String, in change: Change) throws(VaultError) -> (path: String, markdown: String) {
        let bytes = try FileIO.read(file)
        let name = (file as NSString).lastPathComponent
        let path = address(of: bytes, named: name)
        if !FileIO.exists(change.vault.absolute(path)) { try change.write(bytes, to: path) }
        return (path, link(to: path, named: name, from: ".."))
    }

    /// Where a file of `bytes` named `name` is stored: `attachments/<sha256>.<ext>` (its
    /// extension lower-cased, `bin` when it has none or an odd one).
    package static func address(of bytes: [UInt8], named name: String) -> String {
        var ext = (name as NSString).pathExtension.lowercased()
        if ext.isEmpty || ext.utf8.contains(where: { !(($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57)) }) {
            ext = "bin"
        }
        return "\(VaultPath.attachments)/\(SHA256.hex(bytes)).\(ext)"
    }

    /// The Markdown that links the stored `path` (an image shown, anything else linked) from a
    /// file whose folder reaches the vault's root by `up` (`..` from `rooms/`, `../..` from
    /// `diary/2026/`), labelled `name`.
    package static func link(to path: String, named name: String, from up: String) -> String {
        let label = name.replacingOccurrences(of: "]", with: ")").replacingOccurrences(of: "[", with: "(")
        let image = imageTypes[(path as NSString).pathExtension] != nil
        return "\(image ? "!" : "")[\(label)](\(up)/\(path))"
    }

    /// The `data:` URLs of the images a message body links from `attachments/`.
    package static func images(in body: String, vault: Vault) -> [String] {
        var out: [String] = []
        var rest = Substring(body)
        while let open = rest.range(of: "](../\(VaultPath.attachments)/")
            ?? rest.range(of: "](\(VaultPath.attachments)/")
        {
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(of: ")") else { break }
            let name = String(after[..<close])
            let ext = (name as NSString).pathExtension.lowercased()
            if let mime = imageTypes[ext], !name.contains("/"), !name.contains(".."),
                let bytes = try? FileIO.read(vault.absolute(VaultPath.attachments + "/" + name))
            {
                out.append("data:\(mime);base64," + Data(bytes).base64EncodedString())
            }
            rest = after[close...]
        }
        return out
    }
}

/// SHA-256, for content addresses (FIPS 180-4). Small and only used on attachments.
enum SHA256 {
    static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    static func hex(_ message: [UInt8]) -> String {
        var h: [UInt32] = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        ]
        var data = message
        let bitLength = UInt64(message.count) * 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for i in (0..<8).reversed() { data.append(UInt8((bitLength >> (UInt64(i) * 8)) & 0xFF)) }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        var w = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for t in 0..<16 {
                let i = chunk + t * 4
                w[t] =
                    UInt32(data[i]) << 24 | UInt32(data[i + 1]) << 16 | UInt32(data[i + 2]) << 8 | UInt32(data[i + 3])
            }
            for t in 16..<64 {
                let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for t in 0..<64 {
                let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ k[t] &+ w[t]
                let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            h[0] = h[0] &+ a; h[1] = h[1] &+ b; h[2] = h[2] &+ c; h[3] = h[3] &+ d
            h[4] = h[4] &+ e; h[5] = h[5] &+ f; h[6] = h[6] &+ g; h[7] = h[7] &+ hh
        }
        return h.map { String(format: "%08x", $0) }.joined()
    }
}
