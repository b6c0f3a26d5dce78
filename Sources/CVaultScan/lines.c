#define _GNU_SOURCE
#include "CVaultScan.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// The lines of a listing cache (`ListingCache` in VaultCore) checked against the files listed
// now: each line's file found in the listing by its path and stamped, on two threads.

/// One thread's part: the lines from `from` to `to` (each part starts at a line's first byte).
typedef struct line_job {
    const vs_files *files;
    const unsigned char *bytes;
    size_t from, to;
    uint8_t *seen;
    /// The offsets of the changed lines found, in order; `damaged`: a line did not parse.
    int64_t *changed;
    int64_t count, capacity;
    int damaged, failed;
} line_job;

/// `n` bytes of digits at `p` (at most 19), as a number; -1 when they are not.
static int64_t number(const unsigned char *p, size_t n) {
    if (n == 0 || n > 19) return -1;
    int64_t value = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return -1;
        value = value * 10 + (p[i] - '0');
    }
    return value;
}

static int note_changed(line_job *j, size_t at) {
    if (j->count == j->capacity) {
        int64_t cap = j->capacity ? j->capacity * 2 : 256;
        int64_t *c = realloc(j->changed, sizeof(int64_t) * (size_t)cap);
        if (!c) return -1;
        j->changed = c;
        j->capacity = cap;
    }
    j->changed[j->count++] = (int64_t)at;
    return 0;
}

/// Whether file `k` is a regular file with the stamp `s` (device, inode, size, modification
/// seconds and nanoseconds, change seconds and nanoseconds).
static int same_stamp(const vs_files *f, int32_t k, const int64_t s[7]) {
    struct stat st;
    int fd = f->folders[f->folder[k]];
    if (fd < 0) fd = -2 - fd;
    if (fstatat(fd, f->bytes + f->names[k], &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return 0;
    return (int64_t)st.st_dev == s[0] && (int64_t)st.st_ino == s[1] && (int64_t)st.st_size == s[2] &&
           (int64_t)st.st_mtim.tv_sec == s[3] && (int64_t)st.st_mtim.tv_nsec == s[4] &&
           (int64_t)st.st_ctim.tv_sec == s[5] && (int64_t)st.st_ctim.tv_nsec == s[6];
}

/// Gives the whole pages of `from..<to` of the mapping at `b` back to the system.
static void release(const unsigned char *b, size_t from, size_t to) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t first = (from + page - 1) / page * page, end = to / page * page;
    if (end > first) madvise((void *)(b + first), end - first, MADV_DONTNEED);
}

static void *check_part(void *p) {
    line_job *j = p;
    const unsigned char *b = j->bytes;
    unsigned char *plain = NULL;
    size_t plain_capacity = 0;
    size_t released = j->from;
    for (size_t at = j->from; at < j->to;) {
        if (at - released >= (1 << 20)) {
            release(b, released, at);
            released = at;
        }
        const unsigned char *end = memchr(b + at, '\n', j->to - at);
        if (!end) {
            j->damaged = 1;
            break;
        }
        size_t line_end = (size_t)(end - b), i = at;
        // Seven numbers of the stamp and the settled flag, each ended by a tab.
        int64_t values[8];
        int ok = 1;
        for (int k = 0; k < 8 && ok; k++) {
            const unsigned char *tab = memchr(b + i, '\t', line_end - i);
            ok = tab != NULL && (values[k] = number(b + i, (size_t)(tab - b) - i)) >= 0;
            if (ok) i = (size_t)(tab - b) + 1;
        }
        if (!ok) {
            j->damaged = 1;
            break;
        }
        // The path, ended by a tab or the line's end; kept escaped (`\\`, `\t`, `\n`).
        const unsigned char *tab = memchr(b + i, '\t', line_end - i);
        size_t path_end = tab ? (size_t)(tab - b) : line_end, n = path_end - i;
        const unsigned char *path = b + i;
        if (memchr(path, '\\', n)) {
            if (n > plain_capacity) {
                unsigned char *grown = realloc(plain, n);
                if (!grown) {
                    j->failed = 1;
                    break;
                }
                plain = grown;
                plain_capacity = n;
            }
            size_t m = 0;
            for (size_t r = 0; r < n; r++) {
                unsigned char c = path[r];
                if (c == '\\' && r + 1 < n) {
                    c = path[++r];
                    c = c == 't' ? '\t' : c == 'n' ? '\n' : c;
                }
                plain[m++] = c;
            }
            path = plain;
            n = m;
        }
        int32_t k = vs_files_find_bytes(j->files, path, n);
        // A line whose file is listed once, settled and with the same stamp holds; any other changed.
        int holds = k >= 0 && __atomic_exchange_n(&j->seen[k], 1, __ATOMIC_RELAXED) == 0 && values[7] == 1 &&
                    same_stamp(j->files, k, values);
        if (!holds && note_changed(j, at) != 0) {
            j->failed = 1;
            break;
        }
        at = line_end + 1;
    }
    release(b, released, j->to);
    free(plain);
    return NULL;
}

int64_t vs_files_check_lines(const vs_files *f, const unsigned char *bytes, size_t start, size_t end, uint8_t *seen,
                             int64_t **changed) {
    *changed = NULL;
    enum { parts = 2 };
    line_job jobs[parts];
    memset(jobs, 0, sizeof jobs);
    // Split at the line feed nearest the middle (a few lines: one part).
    size_t middle = start + (end - start) / 2;
    const unsigned char *feed = end - start > 65536 ? memchr(bytes + middle, '\n', end - middle) : NULL;
    size_t cut = feed ? (size_t)(feed - bytes) + 1 : end;
    jobs[0] = (line_job){f, bytes, start, cut, seen, NULL, 0, 0, 0, 0};
    jobs[1] = (line_job){f, bytes, cut, end, seen, NULL, 0, 0, 0, 0};
    pthread_t other;
    int started = cut < end && pthread_create(&other, NULL, check_part, &jobs[1]) == 0;
    check_part(&jobs[0]);
    if (started) pthread_join(other, NULL);
    else if (cut < end) check_part(&jobs[1]);
    int64_t total = jobs[0].count + jobs[1].count;
    int64_t *all = NULL;
    int bad = jobs[0].damaged || jobs[1].damaged || jobs[0].failed || jobs[1].failed;
    if (!bad) {
        all = malloc(sizeof(int64_t) * (size_t)(total + 1));
        bad = all == NULL;
    }
    if (!bad) {
        if (jobs[0].count) memcpy(all, jobs[0].changed, sizeof(int64_t) * (size_t)jobs[0].count);
        if (jobs[1].count) memcpy(all + jobs[0].count, jobs[1].changed, sizeof(int64_t) * (size_t)jobs[1].count);
    }
    free(jobs[0].changed);
    free(jobs[1].changed);
    if (bad) {
        free(all);
        return -1;
    }
    *changed = all;
    return total;
}
