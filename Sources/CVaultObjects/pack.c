// One pack for the objects of a large commit (an import: thousands of new files), written the
// way git's own pack format says (Documentation/gitformat-pack: version 2 packs, version 2
// index), without deltas. See README.md, "A pack for a large commit".
#include "pack.h"
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#define OPENSSL_SUPPRESS_DEPRECATED 1  // SHA1_*: see Sources/CCrypto/shim.h
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    git_oid oid;
    git_object_t type;
    uint64_t offset;
    uint32_t crc;
    size_t size;
    size_t stored;  // bytes of the entry in the pack: its header and its zlib stream
    void *data;     // kept for trees, commits and tags (libgit2 reads them back before the flush)
} entry;

struct cvault_pack {
    char *folder;  // objects/pack
    char *temp;    // objects/pack/tmp_pack_vault_XXXXXX
    int fd;
    uint64_t length;
    entry *entries;
    size_t count;
    size_t capacity;
    // The entries by name: open addressing, a power of two of slots holding index + 1 (0: empty),
    // at most half full. libgit2 asks whether each object exists before it writes it, so a
    // list searched from end to end made an import of n files cost n² comparisons.
    size_t *slots;
    size_t slot_count;
    struct libdeflate_compressor *compressor;
    unsigned char *buffer;
    size_t buffer_size;
};

static int os_fail(const char *what, const char *path) {
    char message[4200];
    snprintf(message, sizeof message, "%s %s: %s", what, path, strerror(errno));
    git_error_set_str(GIT_ERROR_OS, message);
    return -1;
}

cvault_pack *cvault_pack_begin(const char *objects_dir, int level) {
    cvault_pack *p = calloc(1, sizeof *p);
    if (!p) {
        git_error_set_oom();
        return NULL;
    }
    p->fd = -1;
    size_t n = strlen(objects_dir);
    p->folder = malloc(n + 8);
    p->temp = malloc(n + 40);
    p->compressor = libdeflate_alloc_compressor(level);
    if (!p->folder || !p->temp || !p->compressor) {
        git_error_set_oom();
        cvault_pack_abandon(p);
        return NULL;
    }
    sprintf(p->folder, "%s/pack", objects_dir);
    if (mkdir(p->folder, 0777) != 0 && errno != EEXIST) {
        os_fail("cannot make the pack folder", p->folder);
        cvault_pack_abandon(p);
        return NULL;
    }
    sprintf(p->temp, "%s/tmp_pack_vault_XXXXXX", p->folder);
    p->fd = mkstemp(p->temp);
    if (p->fd < 0) {
        os_fail("cannot create", p->temp);
        free(p->temp);
        p->temp = NULL;
        cvault_pack_abandon(p);
        return NULL;
    }
    // The header's object count is written when the pack is finished.
    unsigned char header[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0};
    if (cvault_write_all(p->fd, header, sizeof header) != 0) {
        os_fail("cannot write", p->temp);
        cvault_pack_abandon(p);
        return NULL;
    }
    p->length = sizeof header;
    return p;
}

/// The slot where `oid` is, or the empty one where it would go. Object names are SHA-1s: their
/// first bytes are spread evenly already.
static size_t slot_of(const cvault_pack *p, const git_oid *oid) {
    uint64_t hash;
    memcpy(&hash, oid->id, sizeof hash);
    size_t mask = p->slot_count - 1;
    for (size_t at = (size_t)hash & mask;; at = (at + 1) & mask) {
        size_t index = p->slots[at];
        if (index == 0 || git_oid_equal(&p->entries[index - 1].oid, oid)) return at;
    }
}

static entry *find(const cvault_pack *p, const git_oid *oid) {
    if (p->slot_count == 0) return NULL;
    size_t index = p->slots[slot_of(p, oid)];
    return index ? &p->entries[index - 1] : NULL;
}

/// Room in the table for one more entry: twice the slots, every entry placed again, when it
/// would be more than half full.
static int make_room(cvault_pack *p) {
    if (2 * (p->count + 1) <= p->slot_count) return 0;
    size_t count = p->slot_count ? 2 * p->slot_count : 1024;
    size_t *slots = calloc(count, sizeof *slots);
    if (!slots) {
        git_error_set_oom();
        return -1;
    }
    free(p->slots);
    p->slots = slots;
    p->slot_count = count;
    for (size_t i = 0; i < p->count; i++) p->slots[slot_of(p, &p->entries[i].oid)] = i + 1;
    return 0;
}

int cvault_pack_contains(const cvault_pack *p, const git_oid *oid) { return find(p, oid) != NULL; }

int cvault_pack_add(cvault_pack *p, const git_oid *oid, git_object_t type, const void *data, size_t size) {
    if (find(p, oid)) return 0;
    if (type < GIT_OBJECT_COMMIT || type > GIT_OBJECT_TAG) {
        git_error_set_str(GIT_ERROR_INVALID, "a pack holds commits, trees, blobs and tags");
        return -1;
    }
    size_t bound = libdeflate_zlib_compress_bound(p->compressor, size) + 16;
    if (bound > p->buffer_size) {
        unsigned char *grown = realloc(p->buffer, bound);
        if (!grown) {
            git_error_set_oom();
            return -1;
        }
        p->buffer = grown;
        p->buffer_size = bound;
    }
    // The entry's header: the type and the size, 4 bits then 7 bits a byte, low bits first.
    unsigned char *out = p->buffer;
    size_t h = 0;
    uint64_t left = size;
    out[h] = (unsigned char)((type << 4) | (left & 0x0f));
    left >>= 4;
    while (left) {
        out[h++] |= 0x80;
        out[h] = left & 0x7f;
        left >>= 7;
    }
    h++;
    size_t zipped = libdeflate_zlib_compress(p->compressor, data, size, out + h, p->buffer_size - h);
    if (zipped == 0) {
        git_error_set_str(GIT_ERROR_ZLIB, "cannot compress an object");
        return -1;
    }
    if (make_room(p) != 0) return -1;
    if (p->count == p->capacity) {
        size_t capacity = p->capacity ? 2 * p->capacity : 256;
        entry *grown = realloc(p->entries, capacity * sizeof *grown);
        if (!grown) {
            git_error_set_oom();
            return -1;
        }
        p->entries = grown;
        p->capacity = capacity;
    }
    void *copy = NULL;
    if (type != GIT_OBJECT_BLOB) {
        copy = malloc(size ? size : 1);
        if (!copy) {
            git_error_set_oom();
            return -1;
        }
        if (size) memcpy(copy, data, size);
    }
    if (cvault_write_all(p->fd, out, h + zipped) != 0) {
        free(copy);
        return os_fail("cannot write", p->temp);
    }
    p->slots[slot_of(p, oid)] = p->count + 1;
    entry *e = &p->entries[p->count++];
    git_oid_cpy(&e->oid, oid);
    e->type = type;
    e->offset = p->length;
    e->crc = (uint32_t)libdeflate_crc32(0, out, h + zipped);
    e->size = size;
    e->stored = h + zipped;
    e->data = copy;
    p->length += h + zipped;
    return 0;
}

int cvault_pack_read(const cvault_pack *p, const git_oid *oid, void **out, size_t *size, git_object_t *type,
                     void *(*allocate)(void *context, size_t size), void *context) {
    const entry *e = find(p, oid);
    if (!e) return GIT_ENOTFOUND;
    void *bytes = allocate(context, e->size ? e->size : 1);
    if (!bytes) {
        git_error_set_oom();
        return -1;
    }
    if (e->data) {
        if (e->size) memcpy(bytes, e->data, e->size);
    } else {
        // A blob: inflated from the pack file (read back only when libgit2 asks, which a commit does not).
        unsigned char *stored = malloc(e->stored);
        struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
        int ok = stored && d && pread(p->fd, stored, e->stored, (off_t)e->offset) == (ssize_t)e->stored;
        if (ok) {
            size_t h = 1;
            while (h < e->stored && (stored[h - 1] & 0x80)) h++;
            size_t got = 0;
            ok = libdeflate_zlib_decompress(d, stored + h, e->stored - h, bytes, e->size, &got) == LIBDEFLATE_SUCCESS
                && got == e->size;
        }
        free(stored);
        if (d) libdeflate_free_decompressor(d);
        if (!ok) {
            git_error_set_str(GIT_ERROR_ODB, "cannot read an object back from the pack being written");
            return -1;
        }
    }
    *out = bytes;
    *size = e->size;
    *type = e->type;
    return 0;
}

int cvault_pack_header(const cvault_pack *p, const git_oid *oid, size_t *size, git_object_t *type) {
    const entry *e = find(p, oid);
    if (!e) return GIT_ENOTFOUND;
    *size = e->size;
    *type = e->type;
    return 0;
}

size_t cvault_pack_count(const cvault_pack *p) { return p->count; }

static void put32(unsigned char *b, uint32_t v) {
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

static int by_oid(const void *a, const void *b) { return memcmp(((const entry *)a)->oid.id, ((const entry *)b)->oid.id, GIT_OID_RAWSZ); }

/// Writes all of `bytes` to `fd` and into `sha`.
static int emit(int fd, SHA_CTX *sha, const void *bytes, size_t count) {
    SHA1_Update(sha, bytes, count);
    return cvault_write_all(fd, bytes, count);
}

int cvault_pack_finish(cvault_pack *p, int do_fsync, size_t *objects, unsigned long long *bytes) {
    *objects = 0;
    *bytes = 0;
    if (p->count == 0) {
        cvault_pack_abandon(p);
        return 0;
    }
    // The header's count, then the pack's SHA-1 over everything, as its trailer.
    unsigned char count[4];
    put32(count, (uint32_t)p->count);
    unsigned char checksum[20];
    if (pwrite(p->fd, count, 4, 8) != 4) {
        os_fail("cannot write", p->temp);
        cvault_pack_abandon(p);
        return -1;
    }
    SHA_CTX sha;
    SHA1_Init(&sha);
    size_t chunk = 1 << 20;
    unsigned char *buffer = malloc(chunk);
    int read_back = buffer != NULL;
    if (!buffer) git_error_set_oom();
    for (uint64_t at = 0; read_back && at < p->length;) {
        size_t want = p->length - at < chunk ? (size_t)(p->length - at) : chunk;
        ssize_t got = pread(p->fd, buffer, want, (off_t)at);
        if (got <= 0) {
            if (got == 0) errno = EIO;
            os_fail("cannot read back", p->temp);
            read_back = 0;
            break;
        }
        SHA1_Update(&sha, buffer, (size_t)got);
        at += (uint64_t)got;
    }
    free(buffer);
    if (read_back) {
        SHA1_Final(checksum, &sha);
        if (pwrite(p->fd, checksum, 20, (off_t)p->length) != 20) read_back = os_fail("cannot write", p->temp) + 1;
        else if (do_fsync && fsync(p->fd) != 0) read_back = os_fail("cannot flush", p->temp) + 1;
    }
    if (!read_back) {
        cvault_pack_abandon(p);
        return -1;
    }

    // The index (version 2): fan-out, names, CRC-32s, offsets (large ones in a table of their own),
    // the pack's checksum, its own.
    qsort(p->entries, p->count, sizeof *p->entries, by_oid);
    p->slot_count = 0;  // the table named the entries by their old places: nothing is looked up now
    size_t n = strlen(p->folder);
    char *idx_temp = malloc(n + 40);
    char *pack_path = malloc(n + 64);
    char *idx_path = malloc(n + 64);
    if (!idx_temp || !pack_path || !idx_path) {
        free(idx_temp);
        free(pack_path);
        free(idx_path);
        git_error_set_oom();
        cvault_pack_abandon(p);
        return -1;
    }
    sprintf(idx_temp, "%s/tmp_idx_vault_XXXXXX", p->folder);
    int fd = mkstemp(idx_temp);
    int result = -1;
    if (fd < 0) {
        os_fail("cannot create", idx_temp);
        goto done;
    }
    SHA1_Init(&sha);
    unsigned char head[8] = {0xff, 't', 'O', 'c', 0, 0, 0, 2};
    unsigned char fanout[256 * 4];
    size_t seen = 0;
    for (int b = 0; b < 256; b++) {
        while (seen < p->count && p->entries[seen].oid.id[0] <= b) seen++;
        put32(fanout + 4 * b, (uint32_t)seen);
    }
    int failed = emit(fd, &sha, head, sizeof head) || emit(fd, &sha, fanout, sizeof fanout);
    for (size_t i = 0; i < p->count && !failed; i++) failed = emit(fd, &sha, p->entries[i].oid.id, GIT_OID_RAWSZ);
    for (size_t i = 0; i < p->count && !failed; i++) {
        unsigned char crc[4];
        put32(crc, p->entries[i].crc);
        failed = emit(fd, &sha, crc, 4);
    }
    uint32_t large = 0;
    for (size_t i = 0; i < p->count && !failed; i++) {
        unsigned char offset[4];
        uint64_t at = p->entries[i].offset;
        put32(offset, at < 0x80000000u ? (uint32_t)at : (0x80000000u | large++));
        failed = emit(fd, &sha, offset, 4);
    }
    for (size_t i = 0; i < p->count && !failed; i++) {
        uint64_t at = p->entries[i].offset;
        if (at < 0x80000000u) continue;
        unsigned char wide[8];
        put32(wide, (uint32_t)(at >> 32));
        put32(wide + 4, (uint32_t)at);
        failed = emit(fd, &sha, wide, 8);
    }
    if (!failed) failed = emit(fd, &sha, checksum, 20);
    unsigned char own[20];
    SHA1_Final(own, &sha);
    if (!failed) failed = cvault_write_all(fd, own, 20);
    if (failed || fchmod(fd, 0444) != 0 || (do_fsync && fsync(fd) != 0)) {
        os_fail("cannot write", idx_temp);
        unlink(idx_temp);
        goto done;
    }
    // Named as git names packs (by the pack's checksum): the pack first, its index last, so a
    // reader that finds the index finds the pack.
    char hex[41];
    for (int i = 0; i < 20; i++) sprintf(hex + 2 * i, "%02x", checksum[i]);
    sprintf(pack_path, "%s/pack-%s.pack", p->folder, hex);
    sprintf(idx_path, "%s/pack-%s.idx", p->folder, hex);
    if (fchmod(p->fd, 0444) != 0 || rename(p->temp, pack_path) != 0) {
        os_fail("cannot write", pack_path);
        unlink(idx_temp);
        goto done;
    }
    free(p->temp);
    p->temp = NULL;
    if (rename(idx_temp, idx_path) != 0) {
        os_fail("cannot write", idx_path);
        unlink(idx_temp);
        unlink(pack_path);
        goto done;
    }
    if (do_fsync && cvault_fsync_folder(p->folder) != 0) {
        os_fail("cannot flush", p->folder);
        goto done;
    }
    *objects = p->count;
    *bytes = p->length + 20;
    result = 0;
done:
    if (fd >= 0) close(fd);
    free(idx_temp);
    free(pack_path);
    free(idx_path);
    cvault_pack_abandon(p);
    return result;
}

void cvault_pack_abandon(cvault_pack *p) {
    if (!p) return;
    if (p->fd >= 0) close(p->fd);
    if (p->temp) unlink(p->temp);
    for (size_t i = 0; i < p->count; i++) free(p->entries[i].data);
    free(p->entries);
    free(p->slots);
    free(p->buffer);
    if (p->compressor) libdeflate_free_compressor(p->compressor);
    free(p->temp);
    free(p->folder);
    free(p);
}
