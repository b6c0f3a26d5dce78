// One pack for the objects of a large commit (pack.c). Private to CVaultObjects.
#ifndef CVAULT_PACK_H
#define CVAULT_PACK_H

#include <git2.h>
#include <stddef.h>

typedef struct cvault_pack cvault_pack;

/// A new pack being written: `objects/pack/tmp_pack_vault_XXXXXX`; objects compressed at `level`
/// (libdeflate's levels). NULL (libgit2's error set) when it cannot be made.
cvault_pack *cvault_pack_begin(const char *objects_dir, int level);
/// Appends an object (undeltified) unless the pack holds it already.
int cvault_pack_add(cvault_pack *pack, const git_oid *oid, git_object_t type, const void *data, size_t size);
int cvault_pack_contains(const cvault_pack *pack, const git_oid *oid);
/// An object of the pack, into memory from `allocate`; GIT_ENOTFOUND when the pack has none.
int cvault_pack_read(const cvault_pack *pack, const git_oid *oid, void **out, size_t *size, git_object_t *type,
                     void *(*allocate)(void *context, size_t size), void *context);
int cvault_pack_header(const cvault_pack *pack, const git_oid *oid, size_t *size, git_object_t *type);
size_t cvault_pack_count(const cvault_pack *pack);
/// Writes the count and the checksum, the index beside it, flushes both and renames them in
/// (`pack-<checksum>.pack`, then `.idx`), and flushes the folder. Frees `pack` whatever happens;
/// a pack with no object is removed. `objects` and `bytes` say what was written.
int cvault_pack_finish(cvault_pack *pack, int do_fsync, size_t *objects, unsigned long long *bytes);
/// Removes the pack being written and frees it.
void cvault_pack_abandon(cvault_pack *pack);

#endif
