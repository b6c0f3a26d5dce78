// CVaultObjects: a write-only loose-object backend for libgit2's object database.
//
// libgit2's own loose backend compresses every object it writes with one zlib level.
// A vault commit rewrites the tree of the folder it touches, and with 20,000 rooms in
// rooms/ that tree is 1.2 MB, mostly 20-byte object ids that do not compress: zlib's
// fastest level still spends ~15 ms on it to save half of it on disk. This backend
// writes trees with zlib's "stored" blocks (level 0: what git itself writes with
// core.looseCompression=0), and every other object at the level given. Objects are
// written to a temporary file in the object's fan-out folder, flushed to disk, and
// renamed into place, like git and libgit2 do. It only writes: libgit2's own backends
// still read every object.
#ifndef CVAULT_OBJECTS_H
#define CVAULT_OBJECTS_H

#include <git2.h>
#include <git2/sys/odb_backend.h>

/// A backend writing loose objects into `objects_dir` (the repository's `objects` folder).
/// Trees are written at `tree_level`, other objects at `other_level` (zlib levels 0–9);
/// with `do_fsync` each object file and its folder are flushed to disk.
int cvault_odb_writer_new(git_odb_backend **out, const char *objects_dir, int tree_level, int other_level,
                          int do_fsync);

/// Batches: after cvault_odb_writer_begin_batch, each object is written to its temporary file
/// and its write-back started, but not flushed nor renamed in (this backend serves reads of
/// it meanwhile). cvault_odb_writer_flush_batch then flushes every file, renames them in and
/// flushes their folders: one wait on the disk for all of a commit's objects instead of two per
/// object. Call it before a ref names any of them. cvault_odb_writer_abandon_batch removes them.
/// Each ends the batch; all accept NULL (no backend: nothing to do).
void cvault_odb_writer_begin_batch(git_odb_backend *backend);
int cvault_odb_writer_flush_batch(git_odb_backend *backend);
void cvault_odb_writer_abandon_batch(git_odb_backend *backend);
/// cvault_odb_writer_flush_batch that also flushes `extra_count` more open files (`extra_fds`,
/// named `extra_paths` in errors) at the same time as the batch's files: a ref's lock holding
/// the commit's id reaches the disk with the commit's objects (nothing is renamed but the
/// batch's objects). With no backend only the extra files are flushed.
int cvault_odb_writer_flush_batch_with(git_odb_backend *backend, const int *extra_fds,
                                       const char *const *extra_paths, size_t extra_count);

/// Flushes (`fsync`) `count` open files or folders at once, one thread each (at most 16 at a
/// time): the disk then writes them and empties its cache once for all of them, where flushing
/// them one after the other waits for it once per file, which on a busy disk is most of a
/// commit's time. Returns the index of the first that failed (errno set), or -1.
long cvault_fsync_together(const int *fds, size_t count);
/// A batch for a commit of many new files (an import): its objects are written into one new
/// pack (`objects/pack/pack-<checksum>.{pack,idx}`, git's version 2 formats, no deltas) instead
/// of a loose file each, and cvault_odb_writer_flush_batch writes and flushes the pack and its
/// index and renames them in. -1 (libgit2's error set) when the pack cannot be started.
int cvault_odb_writer_begin_pack(git_odb_backend *backend);
/// The objects written into packs by batches begun with cvault_odb_writer_begin_pack.
unsigned long long cvault_odb_writer_objects_packed(git_odb_backend *backend);

/// The bytes of object files this backend has written (as stored on disk).
unsigned long long cvault_odb_writer_bytes_written(git_odb_backend *backend);

/// The object files this backend has written (objects already present are not counted).
unsigned long long cvault_odb_writer_objects_written(git_odb_backend *backend);

#endif
