import CCrypto
import CGit2
import VaultCore

/// Object ids and object writes for the commit engine.
///
/// libgit2 hashes with SHA-1DC (SHA-1 with collision detection), several times slower than
/// OpenSSL's SHA-1; a commit on a 20,000-room vault hashes the 1.2 MB `rooms/` tree, and a
/// long room is a blob of megabytes. The objects vault writes are its own files, so their ids
/// are computed here with OpenSSL's SHA-1 (the same ids: both are SHA-1 over
/// "<type> <size>\0<bytes>") and written through vault's loose-object writer
/// (`CVaultObjects`), the backend at the front of the repository's object database.
/// Without that backend, objects go through `git_odb_write`.
struct ObjectStore {
    let odb: OpaquePointer
    /// vault's writer, owned by `odb`.
    let writer: UnsafeMutablePointer<git_odb_backend>?

    /// The git object id of `bytes` as an object of `type`.
    static func id(of bytes: UnsafeRawBufferPointer, type: git_object_t) -> git_oid {
        var header = Array("\(String(cString: git_object_type2string(type))) \(bytes.count)".utf8)
        header.append(0)
        var oid = git_oid()
        var context = SHA_CTX()
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        let hashed =
            SHA1_Init(&context) == 1
            && SHA1_Update(&context, header, header.count) == 1
            && (bytes.isEmpty || SHA1_Update(&context, bytes.baseAddress, bytes.count) == 1)
            && SHA1_Final(&digest, &context) == 1
        if hashed {
            withUnsafeMutableBytes(of: &oid.id) { $0.copyBytes(from: digest[0..<20]) }
        } else {  // OpenSSL failed (it does not, short of memory): let libgit2 hash it
            _ = git_odb_hash(&oid, bytes.baseAddress, bytes.count, type)
        }
        return oid
    }

    /// Writes `bytes` as an object of `type` (nothing when it is already there) and returns its id.
    func write(_ bytes: [UInt8], type: git_object_t, _ doing: @autoclosure () -> String) throws(VaultError) -> git_oid {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(VaultError) -> git_oid in try write(buffer, type: type, doing()) }
        }
        return try result.get()
    }

    /// Writes `bytes` as an object of `type` (nothing when it is already there) and returns its id.
    func write(_ bytes: UnsafeRawBufferPointer, type: git_object_t, _ doing: @autoclosure () -> String)
        throws(VaultError)
        -> git_oid
    {
        var oid = git_oid()
        if let writer, let write = writer.pointee.write {
            oid = ObjectStore.id(of: bytes, type: type)
            try GitFailure.check(write(writer, &oid, bytes.baseAddress, bytes.count, type), doing())
        } else {
            try GitFailure.check(git_odb_write(&oid, odb, bytes.baseAddress, bytes.count, type), doing())
        }
        return oid
    }
}
