// Large files as git blobs, read and written in pieces: memory does not grow with the file.
//
// A long chat room is a file of megabytes to which each turn appends a few kilobytes, and
// every turn's commit needs it as a new blob: its SHA-1 over the whole file, and a new
// zlib-compressed loose object. Compressing 5 MB at zlib's fastest level takes ~40 ms here,
// most of a turn. These functions write a blob's zlib stream in pieces separated by full
// flushes (after which the compressor starts afresh, so the compressed bytes of a piece do
// not depend on what came before it) and remember where the pieces end ("points"). The
// next version of the file, which starts with the same bytes, copies the compressed bytes
// of the unchanged pieces from the previous object file and compresses only the rest. The
// bytes copied are checked against the file as it is read (Adler-32 of the prefix at each
// point): a file changed anywhere before a point is compressed again from there.
//
// The object written is an ordinary loose object (zlib stream of "blob <size>\0" and the
// bytes): git, libgit2 and every git tool read it.
#ifndef CVAULT_BLOBS_H
#define CVAULT_BLOBS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <git2.h>

/// The end of one piece of a blob's compressed stream.
typedef struct {
    /// Bytes of the file before this point.
    uint64_t content_offset;
    /// Bytes of the compressed stream (after the object header block) before this point.
    uint64_t stream_offset;
    /// Adler-32 of the file's bytes before this point.
    uint32_t adler;
} cvault_blob_point;

/// A blob object file written by `cvault_blob_write`, and its points.
typedef struct {
    /// Size in bytes of the object file.
    uint64_t object_size;
    /// Size of the file the blob holds.
    uint64_t content_size;
    size_t count;
    cvault_blob_point *points;
} cvault_blob_layout;

/// Frees the points of a layout filled by `cvault_blob_write`.
void cvault_blob_layout_dispose(cvault_blob_layout *layout);

/// The git blob id of the file at `path`, read in pieces; `size` gets its size.
/// Returns 0, or -1 with errno set (and a libgit2 error message); a symbolic link at `path`
/// is never followed (errno ELOOP).
int cvault_blob_hash_file(git_oid *out, uint64_t *size, const char *path);

/// Writes the file at `path` as a blob into `objects_dir`, reading it in pieces.
///
/// - `previous_path`/`previous`: an object file written by this function before and its
///   layout, whose unchanged pieces are copied (both may be NULL).
/// - `piece_size`: bytes of the file between two points (e.g. 128 KiB).
/// - `level`: zlib level of what is compressed; `do_fsync`: flush the object and its folder.
/// - `out_layout`: the new object's points (free with `cvault_blob_layout_dispose`).
/// - `reused`: bytes of the file whose compressed form was copied.
/// - `written`: bytes of the object file written (0 when the object was already there).
///
/// - `file_stat`: the file's `stat` when it was opened, which is still its `stat` when the
///   last byte has been read (the blob is that version of the file).
///
/// Fails with errno ESTALE when the file changed while it was read, and ELOOP when `path`
/// is a symbolic link (never followed).
int cvault_blob_write(git_oid *out, const char *objects_dir, const char *path, const char *previous_path,
                      const cvault_blob_layout *previous, uint64_t piece_size, int level, int do_fsync,
                      cvault_blob_layout *out_layout, uint64_t *reused, uint64_t *written, struct stat *file_stat);

#endif
