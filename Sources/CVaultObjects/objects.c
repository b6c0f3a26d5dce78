#include "cvault_objects.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

typedef struct {
    git_odb_backend parent;
    char *objects_dir;
    int tree_level;
    int other_level;
    int do_fsync;
    unsigned long long bytes_written;
} writer;

static int fail(const char *what, const char *path) {
    char message[4200];
    snprintf(message, sizeof message, "%s %s: %s", what, path, strerror(errno));
    git_error_set_str(GIT_ERROR_OS, message);
    return -1;
}

static int write_all(int fd, const unsigned char *bytes, size_t count) {
    while (count > 0) {
        ssize_t n = write(fd, bytes, count);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += n;
        count -= (size_t)n;
    }
    return 0;
}

static int fsync_folder(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int result = fsync(fd);
    close(fd);
    return result;
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

static int writer_write(git_odb_backend *backend, const git_oid *oid, const void *data, size_t size,
                        git_object_t type) {
    writer *w = (writer *)backend;
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, oid);
    size_t dir_size = strlen(w->objects_dir);
    char *folder = malloc(dir_size + 4);
    char *path = malloc(dir_size + 4 + GIT_OID_HEXSZ);
    char *temp = malloc(dir_size + 4 + 32);
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
    if (stat(path, &st) == 0) {  // objects never change: it is already there
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
    zipped = deflate_object(header, (size_t)header_size, data, size,
                            type == GIT_OBJECT_TREE ? w->tree_level : w->other_level, &zipped_size);
    if (!zipped) {
        git_error_set_str(GIT_ERROR_ZLIB, "cannot compress an object");
        goto done;
    }
    sprintf(temp, "%s/tmp_obj_vault_XXXXXX", folder);
    fd = mkstemp(temp);
    if (fd < 0) {
        fail("cannot create", temp);
        goto done;
    }
    if (fchmod(fd, 0444) != 0 || write_all(fd, zipped, zipped_size) != 0 || (w->do_fsync && fsync(fd) != 0)) {
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
        if (fsync_folder(folder) != 0 || (made_folder && fsync_folder(w->objects_dir) != 0)) {
            fail("cannot flush", folder);
            goto done;
        }
    }
    w->bytes_written += zipped_size;
    result = 0;
done:
    if (fd >= 0) close(fd);
    free(zipped);
    free(folder);
    free(path);
    free(temp);
    return result;
}

static void writer_free(git_odb_backend *backend) {
    writer *w = (writer *)backend;
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
    w->parent.free = writer_free;
    *out = &w->parent;
    return 0;
}


unsigned long long cvault_odb_writer_bytes_written(git_odb_backend *backend) {
    return backend ? ((writer *)backend)->bytes_written : 0;
}
