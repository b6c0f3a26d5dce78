// Large files as git blobs, read and written in pieces (see cvault_blobs.h).
#define _GNU_SOURCE
#include "cvault_blobs.h"
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#define OPENSSL_SUPPRESS_DEPRECATED 1  // SHA1_*: see Sources/CCrypto/shim.h
#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define OUT_BUFFER (64 * 1024)

static int os_error(const char *what, const char *path) {
    int code = errno;
    char message[4200];
    snprintf(message, sizeof message, "%s %s: %s", what, path, strerror(code));
    git_error_set_str(GIT_ERROR_OS, message);
    errno = code;
    return -1;
}

static int read_exactly(int fd, unsigned char *buf, size_t count, size_t *got) {
    *got = 0;
    while (*got < count) {
        ssize_t n = read(fd, buf + *got, count - *got);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (n == 0) break;
        *got += (size_t)n;
    }
    return 0;
}

void cvault_blob_layout_dispose(cvault_blob_layout *layout) {
    if (!layout) return;
    free(layout->points);
    layout->points = NULL;
    layout->count = 0;
}

static int push_point(cvault_blob_layout *layout, size_t *capacity, uint64_t content, uint64_t stream, uint32_t adler) {
    if (layout->count == *capacity) {
        size_t bigger = *capacity ? *capacity * 2 : 64;
        cvault_blob_point *grown = realloc(layout->points, bigger * sizeof *grown);
        if (!grown) return -1;
        layout->points = grown;
        *capacity = bigger;
    }
    layout->points[layout->count++] = (cvault_blob_point){content, stream, adler};
    return 0;
}

/// "blob <size>\0" into `header`; returns its length, the terminating NUL included.
static size_t blob_header(char *header, size_t capacity, uint64_t size) {
    return (size_t)snprintf(header, capacity, "blob %llu", (unsigned long long)size) + 1;
}

int cvault_blob_hash_file(git_oid *out, uint64_t *size, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return os_error("cannot read", path);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        os_error("cannot read", path);
        close(fd);
        return -1;
    }
    uint64_t total = (uint64_t)st.st_size;
    size_t chunk = 256 * 1024;
    unsigned char *buf = malloc(chunk);
    SHA_CTX sha;
    int result = -1;
    if (!buf || SHA1_Init(&sha) != 1) {
        git_error_set_oom();
        goto done;
    }
    char header[64];
    size_t header_size = blob_header(header, sizeof header, total);
    SHA1_Update(&sha, header, header_size);
    uint64_t seen = 0;
    for (;;) {
        size_t got;
        if (read_exactly(fd, buf, chunk, &got) != 0) {
            os_error("cannot read", path);
            goto done;
        }
        if (got == 0) break;
        seen += got;
        SHA1_Update(&sha, buf, got);
    }
    if (seen != total) {  // changed while it was read
        errno = ESTALE;
        os_error("changed while being read:", path);
        goto done;
    }
    unsigned char digest[SHA_DIGEST_LENGTH];
    if (SHA1_Final(digest, &sha) != 1) {
        git_error_set_str(GIT_ERROR_SHA, "SHA-1 failed");
        goto done;
    }
    memcpy(out->id, digest, 20);
    *size = total;
    result = 0;
done:
    free(buf);
    close(fd);
    return result;
}

/// SHA-1 of "blob <size>\0" and `size` bytes of `fd`, on a thread of its own: the object id
/// is computed on one core while the object is compressed and written on the other.
typedef struct {
    int fd;
    uint64_t size;
    unsigned char digest[20];
    int failed;
} hashing;

static void *hash_pieces(void *context) {
    hashing *h = context;
    h->failed = 1;
    SHA_CTX sha;
    if (SHA1_Init(&sha) != 1) return NULL;
    char header[64];
    size_t header_size = (size_t)snprintf(header, sizeof header, "blob %llu", (unsigned long long)h->size) + 1;
    SHA1_Update(&sha, header, header_size);
    // The file is hashed where it lies in the page cache (mapped a window at a time: no copy,
    // and no more memory than a window); a file that cannot be mapped is read.
    const uint64_t window = 1 << 20;
    uint64_t at = 0;
    unsigned char *buf = NULL;
    while (at < h->size) {
        size_t want = h->size - at < window ? (size_t)(h->size - at) : (size_t)window;
        void *map = buf ? MAP_FAILED : mmap(NULL, want, PROT_READ, MAP_PRIVATE, h->fd, (off_t)at);
        if (map != MAP_FAILED) {
            SHA1_Update(&sha, map, want);
            munmap(map, want);
            at += want;
            continue;
        }
        if (!buf && !(buf = malloc(256 * 1024))) return NULL;
        if (want > 256 * 1024) want = 256 * 1024;
        ssize_t n = pread(h->fd, buf, want, (off_t)at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) goto done;  // shorter than its size: changed while read
        SHA1_Update(&sha, buf, (size_t)n);
        at += (uint64_t)n;
    }
    if (SHA1_Final(h->digest, &sha) == 1) h->failed = 0;
done:
    free(buf);
    return NULL;
}

/// The object file being written: buffered output, counting the compressed stream's bytes.
typedef struct {
    int fd;
    unsigned char *buf;
    size_t used;
    uint64_t total;  // bytes written to the file
} sink;

static int sink_flush(sink *s) {
    if (s->used && cvault_write_all(s->fd, s->buf, s->used) != 0) return -1;
    s->total += s->used;
    s->used = 0;
    return 0;
}

static int sink_put(sink *s, const void *bytes, size_t count) {
    if (s->used + count > OUT_BUFFER && sink_flush(s) != 0) return -1;
    if (count > OUT_BUFFER) {
        if (cvault_write_all(s->fd, bytes, count) != 0) return -1;
        s->total += count;
        return 0;
    }
    memcpy(s->buf + s->used, bytes, count);
    s->used += count;
    return 0;
}

/// Copies `count` bytes at `offset` of `from` to the end of the sink.
static int sink_copy(sink *s, int from, uint64_t offset, uint64_t count) {
    if (sink_flush(s) != 0) return -1;
    loff_t in = (loff_t)offset;
    uint64_t left = count;
    while (left > 0) {
        ssize_t n = copy_file_range(from, &in, s->fd, NULL, left, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // not supported here, or a short file: copy by hand below
        left -= (uint64_t)n;
        s->total += (uint64_t)n;
    }
    unsigned char *buf = left ? malloc(OUT_BUFFER) : NULL;
    if (left && !buf) return -1;
    while (left > 0) {
        size_t want = left < OUT_BUFFER ? (size_t)left : OUT_BUFFER;
        ssize_t n = pread(from, buf, want, in);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            free(buf);
            if (n == 0) errno = ESTALE;
            return -1;
        }
        if (cvault_write_all(s->fd, buf, (size_t)n) != 0) {
            free(buf);
            return -1;
        }
        in += n;
        left -= (uint64_t)n;
        s->total += (uint64_t)n;
    }
    free(buf);
    return 0;
}

/// Runs deflate on `len` bytes with `flush`, writing everything it produces.
static int deflate_into(z_stream *z, sink *s, const unsigned char *data, size_t len, int flush) {
    unsigned char out[32 * 1024];
    z->next_in = (Bytef *)data;
    z->avail_in = (uInt)len;
    for (;;) {
        z->next_out = out;
        z->avail_out = sizeof out;
        int status = deflate(z, flush);
        if (status == Z_STREAM_ERROR) return -1;
        size_t produced = sizeof out - z->avail_out;
        if (produced && sink_put(s, out, produced) != 0) return -1;
        if (flush == Z_FINISH) {
            if (status == Z_STREAM_END) return 0;
        } else if (z->avail_in == 0 && z->avail_out != 0) {
            return 0;
        }
    }
}

/// The previous object file, checked against its layout; the offset of its compressed
/// stream (after the header block), or 0 when it cannot be used.
static uint64_t open_previous(const char *path, const cvault_blob_layout *layout, int *fd_out, size_t *max_gap) {
    *fd_out = -1;
    if (!path || !layout || layout->count == 0) return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    char header[64];
    size_t header_size = blob_header(header, sizeof header, layout->content_size);
    unsigned char start[80];
    size_t start_size = 2 + 5 + header_size;
    size_t got = 0;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != layout->object_size || read_exactly(fd, start, start_size, &got) != 0 ||
        got != start_size) {
        close(fd);
        return 0;
    }
    // What cvault_blob_write writes first: a zlib header, and the object header in a stored block.
    unsigned char expected[80] = {0x78, 0x01, 0x00, (unsigned char)(header_size & 0xff), (unsigned char)(header_size >> 8),
                                  (unsigned char)(~header_size & 0xff), (unsigned char)((~header_size >> 8) & 0xff)};
    memcpy(expected + 7, header, header_size);
    if (memcmp(start, expected, start_size) != 0) {
        close(fd);
        return 0;
    }
    uint64_t last_content = 0, last_stream = 0;
    *max_gap = 0;
    for (size_t k = 0; k < layout->count; k++) {
        const cvault_blob_point *p = &layout->points[k];
        if (p->content_offset <= last_content || p->stream_offset <= last_stream ||
            p->content_offset > layout->content_size || start_size + p->stream_offset > layout->object_size) {
            close(fd);
            return 0;
        }
        if (p->content_offset - last_content > *max_gap) *max_gap = (size_t)(p->content_offset - last_content);
        last_content = p->content_offset;
        last_stream = p->stream_offset;
    }
    *fd_out = fd;
    return start_size;
}

int cvault_blob_write(git_oid *out, const char *objects_dir, const char *path, const char *previous_path,
                      const cvault_blob_layout *previous, uint64_t piece_size, int level, int do_fsync,
                      cvault_blob_layout *out_layout, uint64_t *reused, uint64_t *written, struct stat *file_stat) {
    memset(out_layout, 0, sizeof *out_layout);
    *reused = 0;
    *written = 0;
    if (piece_size < 4096) piece_size = 4096;
    int fd = -1, prev_fd = -1, result = -1, deflating = 0;
    size_t capacity = 0, max_gap = 0;
    unsigned char *buf = NULL;
    char *temp = NULL, *folder = NULL, *final_path = NULL;
    hashing hasher = {-1, 0, {0}, 1};
    pthread_t hash_thread;
    int hashing_started = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    sink s = {-1, NULL, 0, 0};

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return os_error("cannot read", path);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        os_error("cannot read", path);
        goto done;
    }
    uint64_t total = (uint64_t)st.st_size;
    uint64_t prev_start = open_previous(previous_path, previous, &prev_fd, &max_gap);
    size_t buffer_size = (size_t)piece_size > max_gap ? (size_t)piece_size : max_gap;
    size_t dir_size = strlen(objects_dir);
    buf = malloc(buffer_size);
    s.buf = malloc(OUT_BUFFER);
    temp = malloc(dir_size + 40);
    folder = malloc(dir_size + 8);
    final_path = malloc(dir_size + 48);
    if (!buf || !s.buf || !temp || !folder || !final_path) {
        git_error_set_oom();
        goto done;
    }
    hasher.fd = fd;
    hasher.size = total;
    if (pthread_create(&hash_thread, NULL, hash_pieces, &hasher) != 0) {
        hash_pieces(&hasher);  // no thread to be had: hash here
    } else {
        hashing_started = 1;
    }
    sprintf(temp, "%s/tmp_blob_vault_XXXXXX", objects_dir);
    s.fd = mkstemp(temp);
    if (s.fd < 0) {
        os_error("cannot create", temp);
        goto done;
    }
    fchmod(s.fd, 0444);

    char header[64];
    size_t header_size = blob_header(header, sizeof header, total);
    unsigned char start[7] = {0x78, 0x01, 0x00, (unsigned char)(header_size & 0xff), (unsigned char)(header_size >> 8),
                              (unsigned char)(~header_size & 0xff), (unsigned char)((~header_size >> 8) & 0xff)};
    if (sink_put(&s, start, sizeof start) != 0 || sink_put(&s, header, header_size) != 0) goto write_failed;
    uint64_t stream_start = sizeof start + header_size;

    // Reading: while the file matches the previous blob, piece by piece at its points, nothing
    // is compressed; at the first piece that differs, the matching prefix's compressed bytes
    // are copied and compression starts there.
    uint32_t adler = (uint32_t)adler32(0L, Z_NULL, 0);
    uint64_t pos = 0;
    size_t k = 0;
    int matching = prev_fd >= 0;
    uint64_t matched_stream = 0;
    while (pos < total || (!deflating && pos == total)) {
        uint64_t end;
        if (matching && k < previous->count && previous->points[k].content_offset > pos &&
            previous->points[k].content_offset <= total) {
            end = previous->points[k].content_offset;
        } else {
            end = pos + piece_size < total ? pos + piece_size : total;
            matching = 0;
        }
        size_t want = (size_t)(end - pos), got = 0;
        if (want && (read_exactly(fd, buf, want, &got) != 0 || got != want)) {
            if (got != want) errno = ESTALE;
            os_error("cannot read", path);
            goto done;
        }
        // libdeflate's Adler-32 (vectorised) is ~5x zlib's here: it runs over every byte.
        adler = libdeflate_adler32(adler, buf, got);
        if (matching && adler == previous->points[k].adler) {
            matched_stream = previous->points[k].stream_offset;
            if (push_point(out_layout, &capacity, end, matched_stream, adler) != 0) {
                git_error_set_oom();
                goto done;
            }
            k++;
            pos = end;
            *reused = end;
            continue;
        }
        matching = 0;
        if (!deflating) {
            if (*reused > 0) {
                if (sink_copy(&s, prev_fd, prev_start, matched_stream) != 0) goto write_failed;
                // The disk starts on the copied megabytes while the rest is compressed.
                if (do_fsync) sync_file_range(s.fd, 0, 0, SYNC_FILE_RANGE_WRITE);
            }
            if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
                git_error_set_oom();
                goto done;
            }
            deflating = 1;
        }
        int flush = end == total ? Z_FINISH : Z_FULL_FLUSH;
        if (deflate_into(&z, &s, buf, got, flush) != 0) goto write_failed;
        if (flush == Z_FULL_FLUSH) {
            uint64_t stream_offset = s.total + s.used - stream_start;
            if (push_point(out_layout, &capacity, end, stream_offset, adler) != 0) {
                git_error_set_oom();
                goto done;
            }
        }
        pos = end;
        if (end == total) break;
    }
    // Both readers done (the id's and the stream's), the file must still be the version opened.
    if (hashing_started) {
        pthread_join(hash_thread, NULL);
        hashing_started = 0;
    }
    // The file must not have changed while it was read (nor grown past what was read).
    size_t extra = 0;
    struct stat after;
    if (hasher.failed || read_exactly(fd, buf, 1, &extra) != 0 || extra != 0 || fstat(fd, &after) != 0 || after.st_size != st.st_size ||
        after.st_ino != st.st_ino || after.st_mtim.tv_sec != st.st_mtim.tv_sec || after.st_mtim.tv_nsec != st.st_mtim.tv_nsec ||
        after.st_ctim.tv_sec != st.st_ctim.tv_sec || after.st_ctim.tv_nsec != st.st_ctim.tv_nsec) {
        errno = ESTALE;
        os_error("changed while being read:", path);
        unlink(temp);
        goto done;
    }
    uint32_t header_adler = (uint32_t)adler32(adler32(0L, Z_NULL, 0), (const Bytef *)header, (uInt)header_size);
    uint32_t whole = (uint32_t)adler32_combine(header_adler, adler, (z_off_t)total);
    unsigned char trailer[4] = {whole >> 24, (whole >> 16) & 0xff, (whole >> 8) & 0xff, whole & 0xff};
    if (sink_put(&s, trailer, 4) != 0 || sink_flush(&s) != 0) goto write_failed;

    memcpy(out->id, hasher.digest, 20);
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, out);
    sprintf(folder, "%s/%.2s", objects_dir, hex);
    sprintf(final_path, "%s/%s", folder, hex + 2);
    struct stat existing;
    if (stat(final_path, &existing) == 0) {
        // Already there (written by someone else, perhaps otherwise): no layout to reuse.
        unlink(temp);
        cvault_blob_layout_dispose(out_layout);
        *reused = 0;
        if (file_stat) *file_stat = st;
        result = 0;
        goto done;
    }
    if (do_fsync && fsync(s.fd) != 0) goto write_failed;
    int made_folder = 0;
    if (mkdir(folder, 0777) == 0) {
        made_folder = 1;
    } else if (errno != EEXIST) {
        os_error("cannot make the object folder", folder);
        unlink(temp);
        goto done;
    }
    if (rename(temp, final_path) != 0) {
        os_error("cannot write", final_path);
        unlink(temp);
        goto done;
    }
    if (do_fsync && (cvault_fsync_folder(folder) != 0 || (made_folder && cvault_fsync_folder(objects_dir) != 0))) {
        os_error("cannot flush", folder);
        goto done;
    }
    if (file_stat) *file_stat = st;
    out_layout->object_size = s.total;
    out_layout->content_size = total;
    *written = s.total;
    result = 0;
    goto done;

write_failed:
    os_error("cannot write", temp);
    unlink(temp);
done:
    if (hashing_started) pthread_join(hash_thread, NULL);  // it reads `fd`: done before it is closed
    if (result != 0) {
        cvault_blob_layout_dispose(out_layout);
        if (s.fd >= 0) unlink(temp);  // no temporary file left behind (gone already after a rename)
    }
    if (deflating) deflateEnd(&z);
    if (s.fd >= 0) close(s.fd);
    if (prev_fd >= 0) close(prev_fd);
    if (fd >= 0) close(fd);
    free(s.buf);
    free(buf);
    free(temp);
    free(folder);
    free(final_path);
    return result;
}
