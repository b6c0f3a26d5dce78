#define _GNU_SOURCE  // sync_file_range
#include "cvault_objects.h"
#include "files.h"
#include "pack.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>

/// An object of the open batch: written to its temporary file (write-back started), not yet
/// flushed nor renamed in. Its bytes are kept so libgit2 can read it before then.
typedef struct {
    git_oid oid;
    git_object_t type;
    void *data;
    size_t size;
    int fd;
    char *temp;
    char *path;
    char *folder;
    int made_folder;
    size_t zipped_size;
} pending_object;

typedef struct {
    git_odb_backend parent;
    char *objects_dir;
    int tree_level;
    int other_level;
    int do_fsync;
    unsigned long long bytes_written;
    unsigned long long objects_written;
    int batching;
    pending_object *pending;
    size_t pending_count;
    size_t pending_capacity;
    /// The pack a large batch writes its objects into instead (NULL: loose objects).
    cvault_pack *pack;
    unsigned long long packed_objects;
} writer;

static int fail(const char *what, const char *path) {
    char message[4200];
    snprintf(message, sizeof message, "%s %s: %s", what, path, strerror(errno));
    git_error_set_str(GIT_ERROR_OS, message);
    return -1;
}

/// zlib stream of "<type> <size>\0" followed by the object's bytes, into a new buffer.
static unsigned char *deflate_object(const char *header, size_t header_size, const void *data, size_t size,
                                     int level, size_t *out_size) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit(&z, level) != Z_OK) return NULL;
    size_t bound = deflateBound(&z, (uLong)(header_size + size)) + 64;
    unsigned char *out = malloc(bound);
    if (!out) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_out = out;
    z.avail_out = (uInt)bound;
    z.next_in = (Bytef *)header;
    z.avail_in = (uInt)header_size;
    int status = deflate(&z, Z_NO_FLUSH);
    // Feed the data in pieces that fit zlib's 32-bit counters.
    const unsigned char *next = data;
    size_t left = size;
    while (status == Z_OK && left > 0) {
        uInt piece = left > 0x40000000 ? 0x40000000 : (uInt)left;
        z.next_in = (Bytef *)next;
        z.avail_in = piece;
        status = deflate(&z, Z_NO_FLUSH);
        next += piece - z.avail_in;
        left -= piece - z.avail_in;
    }
    if (status == Z_OK) status = deflate(&z, Z_FINISH);
    *out_size = bound - z.avail_out;
    deflateEnd(&z);
    if (status != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

typedef struct {
    int fd;
    int result;
    int error;
} flush_job;

static void *flush_one(void *argument) {
    flush_job *job = argument;
    job->result = fsync(job->fd);
    job->error = job->result == 0 ? 0 : errno;
    return NULL;
}

long cvault_fsync_together(const int *fds, size_t count) {
    enum { most_threads = 16 };
    for (size_t start = 0; start < count; start += most_threads) {
        size_t n = count - start < most_threads ? count - start : most_threads;
        flush_job jobs[most_threads];
        pthread_t threads[most_threads];
        int started[most_threads];
        for (size_t i = 0; i < n; i++) jobs[i] = (flush_job){fds[start + i], 0, 0};
        // This thread flushes the first; a thread that cannot be started is flushed here too.
        for (size_t i = 1; i < n; i++) started[i] = pthread_create(&threads[i], NULL, flush_one, &jobs[i]) == 0;
        flush_one(&jobs[0]);
        for (size_t i = 1; i < n; i++) {
            if (started[i])
                pthread_join(threads[i], NULL);
            else
                flush_one(&jobs[i]);
        }
        for (size_t i = 0; i < n; i++) {
            if (jobs[i].result != 0) {
                errno = jobs[i].error;
                return (long)(start + i);
            }
        }
    }
    return -1;
}

/// Writes the zlib stream of "<type> <size>\0" and `data` in stored blocks (zlib's level 0, what
/// git writes with core.looseCompression=0) straight from `data`, with no copy: the 1.2 MB
/// `rooms/` tree of a 50,000-file vault went through zlib's buffer, a fresh allocation and
/// zlib's Adler-32 on every commit. The stream's size goes to `out_size`; -1 with errno set.
static int write_stored(int fd, const char *header, size_t header_size, const void *data, size_t size,
                        size_t *out_size) {
    enum { most_block = 65535, batch = 256 };
    const unsigned char *parts[2] = {(const unsigned char *)header, data};
    size_t lengths[2] = {header_size, size};
    size_t total = header_size + size;
    uint32_t adler = libdeflate_adler32(1, header, header_size);
    if (size) adler = libdeflate_adler32(adler, data, size);
    static const unsigned char zlib_header[2] = {0x78, 0x01};
    unsigned char block_headers[batch][5];
    struct iovec io[3 * batch + 2];
    size_t n = 0, blocks = 0, part = 0, offset = 0, left = total;
    io[n++] = (struct iovec){(void *)zlib_header, 2};
    do {
        size_t length = left > most_block ? most_block : left;
        left -= length;
        unsigned char *h = block_headers[blocks++];
        h[0] = left == 0 ? 1 : 0;  // BFINAL on the last block, BTYPE 00: stored
        h[1] = length & 0xFF;
        h[2] = length >> 8;
        h[3] = ~length & 0xFF;
        h[4] = (~length >> 8) & 0xFF;
        io[n++] = (struct iovec){h, 5};
        for (size_t need = length; need > 0;) {
            while (offset == lengths[part]) part++, offset = 0;
            size_t take = lengths[part] - offset < need ? lengths[part] - offset : need;
            io[n++] = (struct iovec){(void *)(parts[part] + offset), take};
            offset += take;
            need -= take;
        }
        unsigned char trailer[4] = {adler >> 24, (adler >> 16) & 0xFF, (adler >> 8) & 0xFF, adler & 0xFF};
        if (left == 0) io[n++] = (struct iovec){trailer, 4};
        if (left == 0 || blocks == batch) {
            // Each piece written whole (short writes go on where they stopped).
            for (size_t i = 0; i < n; i++)
                if (cvault_write_all(fd, io[i].iov_base, io[i].iov_len) != 0) return -1;
            n = 0;
            blocks = 0;
        }
    } while (left > 0);
    *out_size = 2 + 5 * ((total + most_block - 1) / most_block + (total == 0)) + total + 4;
    return 0;
}

static pending_object *find_pending(writer *w, const git_oid *oid) {
    for (size_t i = 0; i < w->pending_count; i++)
        if (git_oid_equal(&w->pending[i].oid, oid)) return &w->pending[i];
    return NULL;
}

static void release_pending(pending_object *p, int remove_temp) {
    if (p->fd >= 0) close(p->fd);
    if (remove_temp && p->temp) unlink(p->temp);
    free(p->data);
    free(p->temp);
    free(p->path);
    free(p->folder);
    memset(p, 0, sizeof *p);
    p->fd = -1;
}

static int flush_pending(writer *w, const int *extra_fds, const char *const *extra_paths, size_t extra_count);

/// Objects a batch keeps open at most (one file descriptor each): past that, the batch so far is
/// flushed and renamed in (objects no ref names yet), and the batch goes on.
enum { most_pending = 64 };

static int writer_write(git_odb_backend *backend, const git_oid *oid, const void *data, size_t size,
                        git_object_t type) {
    writer *w = (writer *)backend;
    if (w->pack) return cvault_pack_add(w->pack, oid, type, data, size);
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, oid);
    size_t dir_size = strlen(w->objects_dir);
    char *folder = malloc(dir_size + 4);
    char *path = malloc(dir_size + 4 + GIT_OID_HEXSZ);
    char *temp = malloc(dir_size + 4 + 32);
    void *copy = NULL;
    int result = -1;
    unsigned char *zipped = NULL;
    int fd = -1;
    if (!folder || !path || !temp) {
        git_error_set_oom();
        goto done;
    }
    sprintf(folder, "%s/%.2s", w->objects_dir, hex);
    sprintf(path, "%s/%s", folder, hex + 2);
    struct stat st;
    if (find_pending(w, oid) || stat(path, &st) == 0) {  // objects never change: it is already there
        result = 0;
        goto done;
    }
    int made_folder = 0;
    if (mkdir(folder, 0777) == 0) {
        made_folder = 1;
    } else if (errno != EEXIST) {
        fail("cannot make the object folder", folder);
        goto done;
    }
    char header[64];
    int header_size = snprintf(header, sizeof header, "%s %zu", git_object_type2string(type), size) + 1;
    size_t zipped_size = 0;
    int level = type == GIT_OBJECT_TREE ? w->tree_level : w->other_level;
    if (level != 0) {
        zipped = deflate_object(header, (size_t)header_size, data, size, level, &zipped_size);
        if (!zipped) {
            git_error_set_str(GIT_ERROR_ZLIB, "cannot compress an object");
            goto done;
        }
    }
    sprintf(temp, "%s/tmp_obj_vault_XXXXXX", folder);
    fd = mkstemp(temp);
    if (fd < 0) {
        fail("cannot create", temp);
        goto done;
    }
    if (fchmod(fd, 0444) != 0 ||
        (zipped ? cvault_write_all(fd, zipped, zipped_size)
                : write_stored(fd, header, (size_t)header_size, data, size, &zipped_size)) != 0) {
        fail("cannot write", temp);
        unlink(temp);
        goto done;
    }
    if (w->batching && w->pending_count >= most_pending && flush_pending(w, NULL, NULL, 0) != 0) {
        unlink(temp);
        goto done;
    }
    if (w->batching) {
        // Flushed, renamed in and its folder flushed by cvault_odb_writer_flush, with the
        // rest of the batch; until then it is read from memory. The disk starts writing it now.
        if (w->do_fsync) sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
        if (w->pending_count == w->pending_capacity) {
            size_t capacity = w->pending_capacity ? 2 * w->pending_capacity : 8;
            pending_object *grown = realloc(w->pending, capacity * sizeof *grown);
            if (!grown) {
                git_error_set_oom();
                unlink(temp);
                goto done;
            }
            w->pending = grown;
            w->pending_capacity = capacity;
        }
        copy = malloc(size ? size : 1);
        if (!copy) {
            git_error_set_oom();
            unlink(temp);
            goto done;
        }
        if (size) memcpy(copy, data, size);
        pending_object *p = &w->pending[w->pending_count++];
        git_oid_cpy(&p->oid, oid);
        p->type = type;
        p->data = copy;
        p->size = size;
        p->fd = fd;
        p->temp = temp;
        p->path = path;
        p->folder = folder;
        p->made_folder = made_folder;
        p->zipped_size = zipped_size;
        fd = -1;
        copy = NULL;
        temp = path = folder = NULL;  // owned by the batch now
        result = 0;
        goto done;
    }
    if (w->do_fsync && fsync(fd) != 0) {
        fail("cannot write", temp);
        unlink(temp);
        goto done;
    }
    int closed = close(fd);
    fd = -1;
    if (closed != 0 || rename(temp, path) != 0) {
        fail("cannot write", path);
        unlink(temp);
        goto done;
    }
    if (w->do_fsync) {
        if (cvault_fsync_folder(folder) != 0 || (made_folder && cvault_fsync_folder(w->objects_dir) != 0)) {
            fail("cannot flush", folder);
            goto done;
        }
    }
    w->bytes_written += zipped_size;
    w->objects_written += 1;
    result = 0;
done:
    if (fd >= 0) close(fd);
    free(copy);
    free(zipped);
    free(folder);
    free(path);
    free(temp);
    return result;
}

// Reads of the batch's objects (libgit2 looks up the new tree, and checks that the tree and
// parent of a new commit exist); every other object is left to libgit2's own backends.
static void *allocate_for(void *backend, size_t size) { return git_odb_backend_data_alloc(backend, size); }

static int writer_read(void **out, size_t *size, git_object_t *type, git_odb_backend *backend, const git_oid *oid) {
    writer *w = (writer *)backend;
    if (w->pack && cvault_pack_contains(w->pack, oid))
        return cvault_pack_read(w->pack, oid, out, size, type, allocate_for, backend);
    pending_object *p = find_pending(w, oid);
    if (!p) return GIT_ENOTFOUND;
    void *copy = git_odb_backend_data_alloc(backend, p->size ? p->size : 1);
    if (!copy) {
        git_error_set_oom();
        return -1;
    }
    if (p->size) memcpy(copy, p->data, p->size);
    *out = copy;
    *size = p->size;
    *type = p->type;
    return 0;
}

static int writer_read_header(size_t *size, git_object_t *type, git_odb_backend *backend, const git_oid *oid) {
    writer *w = (writer *)backend;
    if (w->pack && cvault_pack_contains(w->pack, oid)) return cvault_pack_header(w->pack, oid, size, type);
    pending_object *p = find_pending(w, oid);
    if (!p) return GIT_ENOTFOUND;
    *size = p->size;
    *type = p->type;
    return 0;
}

static int writer_exists(git_odb_backend *backend, const git_oid *oid) {
    writer *w = (writer *)backend;
    return (w->pack && cvault_pack_contains(w->pack, oid)) || find_pending(w, oid) != NULL;
}

void cvault_odb_writer_begin_batch(git_odb_backend *backend) {
    if (backend) ((writer *)backend)->batching = 1;
}

int cvault_odb_writer_begin_pack(git_odb_backend *backend) {
    if (!backend) return 0;
    writer *w = (writer *)backend;
    w->batching = 1;
    if (w->pack) return 0;
    w->pack = cvault_pack_begin(w->objects_dir, 1);
    return w->pack ? 0 : -1;
}

void cvault_odb_writer_abandon_batch(git_odb_backend *backend) {
    if (!backend) return;
    writer *w = (writer *)backend;
    cvault_pack_abandon(w->pack);
    w->pack = NULL;
    for (size_t i = 0; i < w->pending_count; i++) release_pending(&w->pending[i], 1);
    w->pending_count = 0;
    w->batching = 0;
}

int cvault_odb_writer_flush_batch(git_odb_backend *backend) {
    return cvault_odb_writer_flush_batch_with(backend, NULL, NULL, 0);
}

int cvault_odb_writer_flush_batch_with(git_odb_backend *backend, const int *extra_fds,
                                       const char *const *extra_paths, size_t extra_count) {
    if (!backend) {
        long failed = cvault_fsync_together(extra_fds, extra_count);
        return failed < 0 ? 0 : fail("cannot write", extra_paths[failed]);
    }
    writer *w = (writer *)backend;
    w->batching = 0;
    if (w->pack) {
        cvault_pack *pack = w->pack;
        w->pack = NULL;
        size_t objects = 0;
        unsigned long long bytes = 0;
        if (cvault_pack_finish(pack, w->do_fsync, &objects, &bytes) != 0) {
            cvault_odb_writer_abandon_batch(backend);
            return -1;
        }
        w->packed_objects += objects;
    }
    return flush_pending(w, extra_fds, extra_paths, extra_count);
}

/// The batch's objects made durable and named: every file flushed at once (with the extra
/// files), renamed in, then every folder they were renamed in flushed at once (with `objects/`
/// when a fan-out folder was made): two waits on the disk, whatever the count.
static int flush_pending(writer *w, const int *extra_fds, const char *const *extra_paths, size_t extra_count) {
    git_odb_backend *backend = &w->parent;
    size_t count = w->pending_count;
    if (count == 0 || !w->do_fsync) {
        long failed = cvault_fsync_together(extra_fds, extra_count);
        if (failed >= 0) {
            fail("cannot write", extra_paths[failed]);
            cvault_odb_writer_abandon_batch(backend);
            return -1;
        }
        extra_count = 0;
        if (count == 0) return 0;
    }
    int *fds = malloc((count + extra_count + 1) * sizeof *fds);
    const char **folders = malloc((count + 1) * sizeof *folders);
    if (!fds || !folders) {
        free(fds);
        free(folders);
        git_error_set_oom();
        cvault_odb_writer_abandon_batch(backend);
        return -1;
    }
    // Every file's data first (their write-back was started as each was written)...
    if (w->do_fsync) {
        for (size_t i = 0; i < count; i++) fds[i] = w->pending[i].fd;
        for (size_t i = 0; i < extra_count; i++) fds[count + i] = extra_fds[i];
        long failed = cvault_fsync_together(fds, count + extra_count);
        if (failed >= 0) {
            if ((size_t)failed < count)
                fail("cannot write", w->pending[failed].temp);
            else
                fail("cannot write", extra_paths[(size_t)failed - count]);
            free(fds);
            free(folders);
            cvault_odb_writer_abandon_batch(backend);
            return -1;
        }
    }
    // ...then their names: renamed in, and each folder flushed once.
    int made_folder = 0;
    for (size_t i = 0; i < count; i++) {
        pending_object *p = &w->pending[i];
        int closed = close(p->fd);
        p->fd = -1;
        if (closed != 0 || rename(p->temp, p->path) != 0) {
            fail("cannot write", p->path);
            free(fds);
            free(folders);
            cvault_odb_writer_abandon_batch(backend);
            return -1;
        }
        free(p->temp);
        p->temp = NULL;  // renamed: nothing to remove if a later one fails
        made_folder |= p->made_folder;
    }
    int result = 0;
    if (w->do_fsync) {
        size_t opened = 0;
        for (size_t i = 0; i <= count && result == 0; i++) {
            const char *folder = i < count ? w->pending[i].folder : (made_folder ? w->objects_dir : NULL);
            int seen = folder == NULL;
            for (size_t j = 0; j < opened && !seen; j++) seen = strcmp(folders[j], folder) == 0;
            if (seen) continue;
            int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (fd < 0) {
                result = fail("cannot flush", folder);
                break;
            }
            folders[opened] = folder;
            fds[opened++] = fd;
        }
        if (result == 0) {
            long failed = cvault_fsync_together(fds, opened);
            if (failed >= 0) result = fail("cannot flush", folders[failed]);
        }
        for (size_t j = 0; j < opened; j++) close(fds[j]);
    }
    free(fds);
    free(folders);
    for (size_t i = 0; i < count; i++) {
        w->bytes_written += w->pending[i].zipped_size;
        w->objects_written += 1;
        release_pending(&w->pending[i], 0);
    }
    w->pending_count = 0;
    return result;
}

static void writer_free(git_odb_backend *backend) {
    writer *w = (writer *)backend;
    cvault_odb_writer_abandon_batch(backend);
    free(w->pending);
    free(w->objects_dir);
    free(w);
}

int cvault_odb_writer_new(git_odb_backend **out, const char *objects_dir, int tree_level, int other_level,
                          int do_fsync) {
    writer *w = calloc(1, sizeof *w);
    if (!w) {
        git_error_set_oom();
        return -1;
    }
    if (git_odb_init_backend(&w->parent, GIT_ODB_BACKEND_VERSION) != 0 || !(w->objects_dir = strdup(objects_dir))) {
        free(w);
        return -1;
    }
    w->tree_level = tree_level;
    w->other_level = other_level;
    w->do_fsync = do_fsync;
    w->parent.write = writer_write;
    w->parent.read = writer_read;
    w->parent.read_header = writer_read_header;
    w->parent.exists = writer_exists;
    w->parent.free = writer_free;
    *out = &w->parent;
    return 0;
}


unsigned long long cvault_odb_writer_bytes_written(git_odb_backend *backend) {
    return backend ? ((writer *)backend)->bytes_written : 0;
}

unsigned long long cvault_odb_writer_objects_written(git_odb_backend *backend) {
    return backend ? ((writer *)backend)->objects_written : 0;
}

unsigned long long cvault_odb_writer_objects_packed(git_odb_backend *backend) {
    return backend ? ((writer *)backend)->packed_objects : 0;
}
