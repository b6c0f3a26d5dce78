#define _GNU_SOURCE
#include "CVaultScan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void vs_files_init(vs_files *f) { memset(f, 0, sizeof *f); }

void vs_files_free(vs_files *f) {
    for (int32_t i = 0; i < f->folder_count; i++) {
        if (f->folders[i] >= 0) close(f->folders[i]);
    }
    free(f->bytes);
    free(f->starts);
    free(f->names);
    free(f->folder);
    free(f->folders);
    free(f->visited);
    vs_files_init(f);
}

static int grow_files(vs_files *f) {
    if (f->count < f->files_capacity) return 0;
    int32_t cap = f->files_capacity ? f->files_capacity * 2 : 1024;
    uint32_t *s = realloc(f->starts, sizeof(uint32_t) * (size_t)cap);
    if (!s) return -1;
    f->starts = s;
    uint32_t *n = realloc(f->names, sizeof(uint32_t) * (size_t)cap);
    if (!n) return -1;
    f->names = n;
    int32_t *d = realloc(f->folder, sizeof(int32_t) * (size_t)cap);
    if (!d) return -1;
    f->folder = d;
    f->files_capacity = cap;
    return 0;
}

static int add_bytes(vs_files *f, const char *p, size_t n) {
    if (f->bytes_used + (int64_t)n > f->bytes_capacity) {
        int64_t cap = f->bytes_capacity ? f->bytes_capacity : 65536;
        while (cap < f->bytes_used + (int64_t)n) cap *= 2;
        if (cap > UINT32_MAX) return -1;
        char *b = realloc(f->bytes, (size_t)cap);
        if (!b) return -1;
        f->bytes = b;
        f->bytes_capacity = cap;
    }
    memcpy(f->bytes + f->bytes_used, p, n);
    f->bytes_used += (int64_t)n;
    return 0;
}

/// Adds a folder descriptor the list owns (`owned`) or borrows; returns its index.
static int32_t add_folder(vs_files *f, int fd, int owned) {
    if (f->folder_count == f->folders_capacity) {
        int32_t cap = f->folders_capacity ? f->folders_capacity * 2 : 16;
        int32_t *d = realloc(f->folders, sizeof(int32_t) * (size_t)cap);
        if (!d) return -1;
        f->folders = d;
        f->folders_capacity = cap;
    }
    // A borrowed descriptor is stored as -2 - fd, so `free` does not close it.
    f->folders[f->folder_count] = owned ? fd : -2 - fd;
    return f->folder_count++;
}

static inline int folder_fd(const vs_files *f, int32_t i) {
    int32_t d = f->folders[i];
    return d >= 0 ? d : -2 - d;
}

static int add_file(vs_files *f, int32_t folder, const char *prefix, size_t prefix_length, const char *name,
                    size_t name_length) {
    f->list_hash_known = 0;
    if (grow_files(f) != 0) return -1;
    uint32_t start = (uint32_t)f->bytes_used;
    if (add_bytes(f, prefix, prefix_length) != 0 || add_bytes(f, name, name_length + 1) != 0) return -1;
    f->starts[f->count] = start;
    f->names[f->count] = start + (uint32_t)prefix_length;
    f->folder[f->count] = folder;
    f->count++;
    return 0;
}

int vs_files_add(vs_files *f, int root, const char *path, uint32_t length) {
    int32_t folder = -1;
    for (int32_t i = 0; i < f->folder_count; i++) {
        if (f->folders[i] == -2 - root) folder = i;
    }
    if (folder < 0 && (folder = add_folder(f, root, 0)) < 0) return -1;
    f->list_hash_known = 0;
    char nul = 0;
    if (grow_files(f) != 0) return -1;
    uint32_t start = (uint32_t)f->bytes_used;
    if (add_bytes(f, path, length) != 0 || add_bytes(f, &nul, 1) != 0) return -1;
    f->starts[f->count] = start;
    f->names[f->count] = start;
    f->folder[f->count] = folder;
    f->count++;
    return 0;
}

/// A file to sort: its path after the bytes every path shares, and its position.
typedef struct sort_entry {
    const unsigned char *s;
    int32_t at;
} sort_entry;

static inline void swap_entries(sort_entry *a, size_t i, size_t j) {
    sort_entry t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/// Sorts `a[0..<n]`, whose paths agree on their first `d` bytes, by their bytes (strcmp's order):
/// a three-way radix quicksort (Bentley and Sedgewick), which compares each byte of a shared
/// prefix once per partition instead of once per comparison (names such as `api-설계-2.md`,
/// `api-설계-3.md` share long prefixes).
static void sort_paths(sort_entry *a, size_t n, size_t d) {
    while (n > 1) {
        if (n < 12) {
            for (size_t i = 1; i < n; i++) {
                for (size_t j = i; j > 0 && strcmp((const char *)a[j - 1].s + d, (const char *)a[j].s + d) > 0; j--) {
                    swap_entries(a, j - 1, j);
                }
            }
            return;
        }
        // The median of the first, middle and last bytes at `d` as the pivot.
        unsigned char x = a[0].s[d], y = a[n / 2].s[d], z = a[n - 1].s[d];
        unsigned char v = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        size_t lt = 0, i = 0, gt = n;
        while (i < gt) {
            unsigned char c = a[i].s[d];
            if (c < v) {
                swap_entries(a, lt++, i++);
            } else if (c > v) {
                swap_entries(a, i, --gt);
            } else {
                i++;
            }
        }
        sort_paths(a, lt, d);
        if (v != 0) sort_paths(a + lt, gt - lt, d + 1);
        // The last part in the loop (no deeper stack for it).
        a += gt;
        n -= gt;
    }
}

/// Sorts files `from..<count` by their paths' bytes (strcmp's order: unsigned bytes).
static int sort_tail(vs_files *f, int32_t from) {
    int32_t n = f->count - from;
    if (n < 2) return 0;
    sort_entry *order = malloc(sizeof(sort_entry) * (size_t)n);
    uint32_t *tmp = malloc(sizeof(uint32_t) * 2 * (size_t)n);
    int32_t *tmpf = malloc(sizeof(int32_t) * (size_t)n);
    if (!order || !tmp || !tmpf) {
        free(order), free(tmp), free(tmpf);
        return -1;
    }
    for (int32_t i = 0; i < n; i++) {
        order[i] = (sort_entry){(const unsigned char *)f->bytes + f->starts[from + i], from + i};
    }
    sort_paths(order, (size_t)n, 0);
    for (int32_t i = 0; i < n; i++) {
        tmp[i] = f->starts[order[i].at];
        tmp[n + i] = f->names[order[i].at];
        tmpf[i] = f->folder[order[i].at];
    }
    memcpy(f->starts + from, tmp, sizeof(uint32_t) * (size_t)n);
    memcpy(f->names + from, tmp + n, sizeof(uint32_t) * (size_t)n);
    memcpy(f->folder + from, tmpf, sizeof(int32_t) * (size_t)n);
    free(order), free(tmp), free(tmpf);
    return 0;
}

typedef struct seen_dirs {
    dev_t *dev;
    ino_t *ino;
    int n, cap;
} seen_dirs;

static int seen_before(seen_dirs *s, dev_t dev, ino_t ino) {
    for (int i = 0; i < s->n; i++) {
        if (s->dev[i] == dev && s->ino[i] == ino) return 1;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        dev_t *d = realloc(s->dev, sizeof(dev_t) * (size_t)cap);
        if (!d) return 0;
        s->dev = d;
        ino_t *i = realloc(s->ino, sizeof(ino_t) * (size_t)cap);
        if (!i) return 0;
        s->ino = i;
        s->cap = cap;
    }
    s->dev[s->n] = dev;
    s->ino[s->n] = ino;
    s->n++;
    return 0;
}

/// Notes a folder listed (or that could not be opened: `missing`), for `vs_files_save`.
static int visit(vs_files *f, const char *prefix, size_t prefix_length, const struct stat *st, int32_t slot, int top,
                 int missing) {
    if (f->visited_count == f->visited_capacity) {
        int32_t cap = f->visited_capacity ? f->visited_capacity * 2 : 16;
        vs_folder *v = realloc(f->visited, sizeof(vs_folder) * (size_t)cap);
        if (!v) return -1;
        f->visited = v;
        f->visited_capacity = cap;
    }
    vs_folder *v = &f->visited[f->visited_count++];
    memset(v, 0, sizeof *v);
    size_t length = prefix_length > 0 && prefix[prefix_length - 1] == '/' ? prefix_length - 1 : prefix_length;
    if (length >= sizeof v->path) length = sizeof v->path - 1, v->pad = 1;  // too long to save
    memcpy(v->path, prefix, length);
    if (st) {
        v->device = (int64_t)st->st_dev;
        v->inode = (int64_t)st->st_ino;
        v->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
        v->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
    }
    v->slot = slot;
    v->top = top;
    v->missing = missing;
    return 0;
}

/// Folders kept open at most; the files of further folders are opened by their path from the root.
enum { kept_folders = 256 };

/// Lists the folder open as `fd` (named `prefix`, which ends with a slash, relative to the open
/// folder `root`), taking ownership of `fd`.
static int list_folder(vs_files *f, int root, int fd, char *prefix, size_t prefix_length, int recursive,
                       seen_dirs *seen, int top) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return visit(f, prefix, prefix_length, NULL, -1, top, 1);
    }
    if (seen_before(seen, st.st_dev, st.st_ino)) {
        close(fd);
        return visit(f, prefix, prefix_length, &st, -1, top, 0);
    }
    int keep = f->folder_count < kept_folders;
    int32_t folder = -1;
    if (keep) {
        folder = add_folder(f, fd, 1);
    } else {
        for (int32_t i = 0; i < f->folder_count; i++) {
            if (f->folders[i] == -2 - root) folder = i;
        }
        if (folder < 0) folder = add_folder(f, root, 0);
    }
    if (folder < 0) {
        close(fd);
        return -1;
    }
    if (visit(f, prefix, prefix_length, &st, keep ? folder : -1, top, 0) != 0) return -1;
    int walk = dup(fd);
    if (walk < 0) return 0;
    DIR *dir = fdopendir(walk);
    if (!dir) {
        close(walk);
        return 0;
    }
    int result = 0;
    // Subfolders are listed after this folder's entries (their names are kept until then).
    char *subfolders = NULL;
    size_t sub_length = 0, sub_capacity = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        const char *name = e->d_name;
        if (name[0] == '.' || name[0] == 0) continue;
        size_t length = strlen(name);
        unsigned char type = e->d_type;
        if (type == DT_UNKNOWN) {
            struct stat est;
            if (fstatat(fd, name, &est, AT_SYMLINK_NOFOLLOW) != 0) continue;
            type = S_ISDIR(est.st_mode) ? DT_DIR : S_ISREG(est.st_mode) ? DT_REG : DT_LNK;
        }
        if (type == DT_DIR) {
            if (!recursive) continue;
            if (sub_length + length + 1 > sub_capacity) {
                size_t cap = sub_capacity ? sub_capacity * 2 : 4096;
                while (cap < sub_length + length + 1) cap *= 2;
                char *s = realloc(subfolders, cap);
                if (!s) {
                    result = -1;
                    break;
                }
                subfolders = s;
                sub_capacity = cap;
            }
            memcpy(subfolders + sub_length, name, length + 1);
            sub_length += length + 1;
        } else if (type == DT_REG && length > 3 && memcmp(name + length - 3, ".md", 3) == 0) {
            if (add_file(f, folder, prefix, prefix_length, name, length) != 0) {
                result = -1;
                break;
            }
            // A folder not kept open: the file is opened by its whole path from the root.
            if (!keep) f->names[f->count - 1] = f->starts[f->count - 1];
        }
    }
    closedir(dir);
    if (!keep) close(fd);
    for (size_t at = 0; result == 0 && at < sub_length;) {
        const char *name = subfolders + at;
        size_t length = strlen(name);
        at += length + 1;
        int sub = -1;
        if (keep) {
            sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        } else {
            char *whole = malloc(prefix_length + length + 1);
            if (whole) {
                memcpy(whole, prefix, prefix_length);
                memcpy(whole + prefix_length, name, length + 1);
                sub = openat(root, whole, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                free(whole);
            }
        }
        char *path = malloc(prefix_length + length + 2);
        if (!path) {
            if (sub >= 0) close(sub);
            result = -1;
            break;
        }
        memcpy(path, prefix, prefix_length);
        memcpy(path + prefix_length, name, length);
        path[prefix_length + length] = '/';
        if (sub < 0) {
            // Noted, so that a folder that opens later (its permissions changed) is seen.
            result = visit(f, path, prefix_length + length + 1, NULL, -1, 0, 1);
        } else {
            result = list_folder(f, root, sub, path, prefix_length + length + 1, recursive, seen, 0);
        }
        free(path);
    }
    free(subfolders);
    return result;
}

int vs_files_append(vs_files *f, int root, vs_files *other, int other_root, int keep_other) {
    // Where each of `other`'s folders goes in `f`: its root is `f`'s (borrowed), its own
    // folders move (owned, so `other` no longer closes them), or are duplicated when `other`
    // is kept.
    int32_t *moved = malloc(sizeof(int32_t) * (size_t)(other->folder_count + 1));
    if (!moved) return -1;
    int32_t root_slot = -1;
    for (int32_t i = 0; i < f->folder_count; i++) {
        if (f->folders[i] == -2 - root) root_slot = i;
    }
    for (int32_t i = 0; i < other->folder_count; i++) {
        int32_t d = other->folders[i];
        if (d == -2 - other_root) {
            if (root_slot < 0) root_slot = add_folder(f, root, 0);
            moved[i] = root_slot;
        } else {
            if (d >= 0 && keep_other) {
                int copy = fcntl(d, F_DUPFD_CLOEXEC, 0);
                moved[i] = copy >= 0 ? add_folder(f, copy, 1) : -1;
                if (copy >= 0 && moved[i] < 0) close(copy);
            } else {
                moved[i] = d >= 0 ? add_folder(f, d, 1) : add_folder(f, -2 - d, 0);
                if (moved[i] >= 0 && d >= 0) other->folders[i] = -1;
            }
        }
        if (moved[i] < 0) {
            free(moved);
            return -1;
        }
    }
    uint32_t offset = (uint32_t)f->bytes_used;
    if (add_bytes(f, other->bytes, (size_t)other->bytes_used) != 0) {
        free(moved);
        return -1;
    }
    for (int32_t k = 0; k < other->count; k++) {
        if (grow_files(f) != 0) {
            free(moved);
            return -1;
        }
        f->starts[f->count] = other->starts[k] + offset;
        f->names[f->count] = other->names[k] + offset;
        f->folder[f->count] = moved[other->folder[k]];
        f->count++;
    }
    for (int32_t i = 0; i < other->visited_count; i++) {
        const vs_folder *v = &other->visited[i];
        if (visit(f, v->path, strlen(v->path), NULL, v->slot >= 0 ? moved[v->slot] : -1, v->top, v->missing) != 0) {
            free(moved);
            return -1;
        }
        vs_folder *copy = &f->visited[f->visited_count - 1];
        copy->device = v->device, copy->inode = v->inode, copy->mtime_ns = v->mtime_ns, copy->ctime_ns = v->ctime_ns;
        copy->pad = v->pad;
    }
    free(moved);
    if (other->listed_ns != 0 && (f->listed_ns == 0 || other->listed_ns < f->listed_ns)) f->listed_ns = other->listed_ns;
    f->list_hash_known = 0;
    if (!keep_other) vs_files_free(other);
    return 0;
}

static int64_t real_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int vs_files_list(vs_files *f, int root, const char *folder, int recursive) {
    int32_t from = f->count;
    if (f->listed_ns == 0) f->listed_ns = real_ns();
    size_t length = strlen(folder);
    int fd = openat(root, folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return visit(f, folder, length, NULL, -1, 1, 1);
    char *prefix = malloc(length + 2);
    if (!prefix) {
        close(fd);
        return -1;
    }
    memcpy(prefix, folder, length);
    prefix[length] = '/';
    seen_dirs seen = {0};
    int result = list_folder(f, root, fd, prefix, length + 1, recursive, &seen, 1);
    free(prefix);
    free(seen.dev);
    free(seen.ino);
    if (result != 0) return result;
    return sort_tail(f, from);
}

int vs_files_open(const vs_files *f, int32_t k) {
    int fd;
    do {
        fd = openat(folder_fd(f, f->folder[k]), f->bytes + f->names[k], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

static void stamp_range(const vs_files *f, int32_t from, int32_t to, vs_stamp *out) {
    struct stat st;
    for (int32_t k = from; k < to; k++) {
        vs_stamp *s = out + (k - from);
        if (fstatat(folder_fd(f, f->folder[k]), f->bytes + f->names[k], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode)) {
            s->device = (int64_t)st.st_dev;
            s->inode = (int64_t)st.st_ino;
            s->size = (int64_t)st.st_size;
            s->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
            s->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
        } else {
            s->device = s->inode = s->size = s->mtime_ns = s->ctime_ns = -1;
        }
    }
}

typedef struct stamp_job {
    const vs_files *files;
    int32_t from, to, base;
    vs_stamp *out;
} stamp_job;

static void *stamp_thread(void *p) {
    stamp_job *j = p;
    stamp_range(j->files, j->from, j->to, j->out + (j->from - j->base));
    return NULL;
}

void vs_files_stamps(const vs_files *f, int32_t from, int32_t to, vs_stamp *out, int threads) {
    int32_t n = to - from;
    if (threads > 16) threads = 16;
    if (threads < 1 || n < 4000) threads = 1;
    stamp_job jobs[16];
    pthread_t ids[16];
    int started[16] = {0};
    for (int t = 0; t < threads; t++) {
        jobs[t] = (stamp_job){f, from + (int32_t)((int64_t)n * t / threads),
                              from + (int32_t)((int64_t)n * (t + 1) / threads), from, out};
    }
    // The calling thread takes the first part; the others run beside it.
    for (int t = 1; t < threads; t++) started[t] = pthread_create(&ids[t], NULL, stamp_thread, &jobs[t]) == 0;
    stamp_thread(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        else stamp_thread(&jobs[t]);
    }
}

/// The saved listing: a header, then the arrays as they are in memory.
typedef struct saved_header {
    uint64_t magic, checksum, list_hash;
    int64_t listed_ns, root_device, root_inode, bytes_used;
    int32_t count, folder_count, visited_count, root_slot;
} saved_header;

static const uint64_t saved_magic = 0x3273696c74736176ULL;  // "vastlis2"

/// One step of `StampFile.mix` (Swift): the same numbers, so both sides hash a listing alike.
static inline uint64_t mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

/// `StampFile.pathHash` of `n` bytes at `p`.
static uint64_t path_hash(const unsigned char *p, size_t n) {
    uint64_t h = 0x452821E638D01377ULL;
    if (n == 0) return mix(h, 1ULL << 63);
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, p + k, 8);
        h = mix(h, w);
    }
    uint64_t tail = 0;
    for (; k < n; k++) tail = tail << 8 | p[k];
    return mix(mix(h, tail), (uint64_t)n | 1ULL << 63);
}

static uint64_t list_hash(const vs_files *f) {
    uint64_t h = 0x243F6A8885A308D3ULL;
    for (int32_t k = 0; k < f->count; k++) {
        const char *p = f->bytes + f->starts[k];
        h = mix(h, path_hash((const unsigned char *)p, strlen(p)));
    }
    return h;
}

uint64_t vs_files_list_hash(vs_files *f) {
    if (!f->list_hash_known) {
        f->list_hash = list_hash(f);
        f->list_hash_known = 1;
    }
    return f->list_hash;
}

static uint64_t checksum(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

typedef struct part {
    const void *p;
    size_t n;
} part;

int vs_files_save(const vs_files *f, int root, const char *path) {
    struct stat rs;
    if (f->listed_ns == 0 || fstat(root, &rs) != 0) return -1;
    saved_header h = {saved_magic, 0, list_hash(f), f->listed_ns, (int64_t)rs.st_dev, (int64_t)rs.st_ino, f->bytes_used,
                      f->count, f->folder_count, f->visited_count, -1};
    for (int32_t i = 0; i < f->folder_count; i++) {
        if (f->folders[i] < 0) h.root_slot = i;  // the only borrowed folder is the root
    }
    for (int32_t i = 0; i < f->visited_count; i++) {
        if (f->visited[i].pad) return -1;  // a path too long to save
    }
    part parts[] = {
        {f->starts, sizeof(uint32_t) * (size_t)f->count}, {f->names, sizeof(uint32_t) * (size_t)f->count},
        {f->folder, sizeof(int32_t) * (size_t)f->count},  {f->visited, sizeof(vs_folder) * (size_t)f->visited_count},
        {f->bytes, (size_t)f->bytes_used},
    };
    size_t total = 0;
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) total += parts[k].n;
    unsigned char *body = malloc(total ? total : 1);
    if (!body) return -1;
    size_t at = 0;
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        if (parts[k].n) memcpy(body + at, parts[k].p, parts[k].n);
        at += parts[k].n;
    }
    h.checksum = checksum(body, total);
    size_t length = strlen(path);
    char *temporary = malloc(length + 32);
    if (!temporary) {
        free(body);
        return -1;
    }
    snprintf(temporary, length + 32, "%s.%d.tmp", path, (int)getpid());
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int ok = fd >= 0;
    for (size_t k = 0; ok && k < 2; k++) {
        const unsigned char *p = k == 0 ? (const unsigned char *)&h : body;
        size_t n = k == 0 ? sizeof h : total, done = 0;
        while (ok && done < n) {
            ssize_t w = write(fd, p + done, n - done);
            if (w < 0 && errno == EINTR) continue;
            ok = w > 0;
            if (ok) done += (size_t)w;
        }
    }
    if (fd >= 0 && close(fd) != 0) ok = 0;
    if (ok) ok = rename(temporary, path) == 0;
    if (!ok) unlink(temporary);
    free(temporary);
    free(body);
    return ok ? 0 : -1;
}

/// Keeps only the files and folders under the top folder `top` (its path from the root), their
/// paths' bytes packed again. Returns 0, or -1 when memory ran out.
static int keep_top(vs_files *f, const char *top) {
    size_t n = strlen(top);
    char *bytes = malloc((size_t)f->bytes_used + 1);
    if (!bytes) return -1;
    uint32_t used = 0;
    int32_t kept = 0;
    for (int32_t k = 0; k < f->count; k++) {
        const char *p = f->bytes + f->starts[k];
        if (strncmp(p, top, n) != 0 || p[n] != '/') continue;
        size_t length = strlen(p) + 1;
        memcpy(bytes + used, p, length);
        f->names[kept] = used + (f->names[k] - f->starts[k]);
        f->starts[kept] = used;
        f->folder[kept] = f->folder[k];
        used += (uint32_t)length;
        kept++;
    }
    free(f->bytes);
    f->bytes = bytes;
    f->bytes_used = f->bytes_capacity = used;
    f->count = kept;
    int32_t v = 0;
    for (int32_t i = 0; i < f->visited_count; i++) {
        const char *p = f->visited[i].path;
        if (strncmp(p, top, n) == 0 && (p[n] == 0 || p[n] == '/')) f->visited[v++] = f->visited[i];
    }
    f->visited_count = v;
    f->list_hash_known = 0;
    return 0;
}

int vs_files_load(vs_files *f, int root, const char *path, int64_t margin_ns) {
    return vs_files_load_top(f, root, path, margin_ns, NULL);
}

int vs_files_load_top(vs_files *f, int root, const char *path, int64_t margin_ns, const char *top) {
    vs_files_free(f);
    // A part taken again counts as listed now: each of its folders is checked unchanged below,
    // and had settled before the old listing (so before this one), which is what a listing's
    // time promises when the part is saved again with files listed now.
    int64_t now = real_ns();
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st, rs;
    saved_header h;
    // Mapped, not read: the file is replaced by a rename, never written in place, and its pages
    // are the page cache's (a read into a new buffer copied and cleared 2.5 MB every search).
    const unsigned char *map = NULL;
    const unsigned char *body = NULL;
    int ok = fstat(fd, &st) == 0 && fstat(root, &rs) == 0 && st.st_size >= (off_t)sizeof h;
    if (ok) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        ok = m != MAP_FAILED;
        if (ok) map = m;
    }
    close(fd);
    if (ok) memcpy(&h, map, sizeof h);
    ok = ok && h.magic == saved_magic && h.root_device == (int64_t)rs.st_dev && h.root_inode == (int64_t)rs.st_ino &&
         h.count >= 0 && h.folder_count >= 0 && h.visited_count >= 0 && h.bytes_used >= 0 &&
         h.bytes_used < UINT32_MAX;
    size_t total = 0;
    if (ok) {
        total = (sizeof(uint32_t) * 2 + sizeof(int32_t)) * (size_t)h.count +
                sizeof(vs_folder) * (size_t)h.visited_count + (size_t)h.bytes_used;
        ok = (off_t)(sizeof h + total) == st.st_size;
        body = map + sizeof h;
    }
    ok = ok && checksum(body, total) == h.checksum;
    if (ok) {
        f->count = f->files_capacity = h.count;
        f->starts = malloc(sizeof(uint32_t) * (size_t)h.count + 1);
        f->names = malloc(sizeof(uint32_t) * (size_t)h.count + 1);
        f->folder = malloc(sizeof(int32_t) * (size_t)h.count + 1);
        f->visited = malloc(sizeof(vs_folder) * (size_t)h.visited_count + 1);
        f->bytes = malloc((size_t)h.bytes_used + 1);
        f->folders = malloc(sizeof(int32_t) * (size_t)h.folder_count + 1);
        ok = f->starts && f->names && f->folder && f->visited && f->bytes && f->folders;
    }
    if (ok) {
        size_t at = 0;
        memcpy(f->starts, body + at, sizeof(uint32_t) * (size_t)h.count), at += sizeof(uint32_t) * (size_t)h.count;
        memcpy(f->names, body + at, sizeof(uint32_t) * (size_t)h.count), at += sizeof(uint32_t) * (size_t)h.count;
        memcpy(f->folder, body + at, sizeof(int32_t) * (size_t)h.count), at += sizeof(int32_t) * (size_t)h.count;
        memcpy(f->visited, body + at, sizeof(vs_folder) * (size_t)h.visited_count);
        at += sizeof(vs_folder) * (size_t)h.visited_count;
        memcpy(f->bytes, body + at, (size_t)h.bytes_used);
        f->bytes_used = f->bytes_capacity = h.bytes_used;
        f->visited_count = f->visited_capacity = h.visited_count;
        f->folders_capacity = h.folder_count;
        f->listed_ns = h.listed_ns;
        f->list_hash = h.list_hash;
        f->list_hash_known = 1;
        for (int32_t i = 0; i < h.folder_count; i++) f->folders[i] = -1;
        f->folder_count = h.folder_count;
        if (h.root_slot >= 0 && h.root_slot < h.folder_count) f->folders[h.root_slot] = -2 - root;
        // Every file's offsets and folder must be in range.
        for (int32_t k = 0; ok && k < h.count; k++) {
            ok = f->starts[k] < (uint32_t)h.bytes_used && f->names[k] >= f->starts[k] &&
                 f->names[k] < (uint32_t)h.bytes_used && f->folder[k] >= 0 && f->folder[k] < h.folder_count;
        }
        ok = ok && (h.bytes_used == 0 || f->bytes[h.bytes_used - 1] == 0);
    }
    if (map) munmap((void *)map, (size_t)st.st_size);
    if (ok && top) {
        ok = keep_top(f, top) == 0;
        f->listed_ns = now;
    }
    // Each folder as it was, and settled when the listing began.
    for (int32_t i = 0; ok && i < f->visited_count; i++) {
        vs_folder *v = &f->visited[i];
        v->path[sizeof v->path - 1] = 0;
        int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (v->top ? 0 : O_NOFOLLOW);
        int d = openat(root, v->path, flags);
        if (v->missing) {
            ok = d < 0;
            if (d >= 0) close(d);
            continue;
        }
        struct stat ds;
        ok = d >= 0 && fstat(d, &ds) == 0 && (int64_t)ds.st_dev == v->device && (int64_t)ds.st_ino == v->inode &&
             (int64_t)ds.st_mtim.tv_sec * 1000000000 + ds.st_mtim.tv_nsec == v->mtime_ns &&
             (int64_t)ds.st_ctim.tv_sec * 1000000000 + ds.st_ctim.tv_nsec == v->ctime_ns &&
             (v->mtime_ns > v->ctime_ns ? v->mtime_ns : v->ctime_ns) < h.listed_ns - margin_ns;
        if (ok && v->slot >= 0 && v->slot < f->folder_count && f->folders[v->slot] == -1) {
            f->folders[v->slot] = d;
        } else if (d >= 0) {
            close(d);
        }
    }
    // Every folder a file is in is open (with `top`, the others' folders stand for the root:
    // no file names them).
    for (int32_t i = 0; ok && i < f->folder_count; i++) {
        if (f->folders[i] == -1 && top) f->folders[i] = -2 - root;
        ok = f->folders[i] != -1;
    }
    if (!ok) {
        vs_files_free(f);
        return -1;
    }
    return 0;
}

/// Where the files of the top folder that file `from` is in end (the first later file in
/// another top folder), found by halves: a top folder's files are together.
static int32_t top_folder_end(const vs_files *f, int32_t from) {
    const char *first = f->bytes + f->starts[from];
    const char *slash = strchr(first, '/');
    size_t prefix = slash ? (size_t)(slash - first) + 1 : strlen(first);
    int32_t low = from + 1, high = f->count;
    while (low < high) {
        int32_t mid = low + (high - low) / 2;
        if (strncmp(f->bytes + f->starts[mid], first, prefix) == 0) low = mid + 1;
        else high = mid;
    }
    return low;
}

int32_t vs_files_find(const vs_files *f, const char *path) {
    for (int32_t from = 0; from < f->count;) {
        int32_t end = top_folder_end(f, from);
        int32_t low = from, high = end;
        while (low < high) {
            int32_t mid = low + (high - low) / 2;
            int c = strcmp(f->bytes + f->starts[mid], path);
            if (c == 0) return mid;
            if (c < 0) low = mid + 1;
            else high = mid;
        }
        from = end;
    }
    return -1;
}

/// strcmp's order of the NUL-ended `s` against the `n` bytes at `p` (which hold no NUL).
static int compare_bytes(const char *s, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != p[i]) return c == 0 || c < p[i] ? -1 : 1;
    }
    return s[n] == 0 ? 0 : 1;
}

int32_t vs_files_find_bytes(const vs_files *f, const unsigned char *path, size_t n) {
    for (int32_t from = 0; from < f->count;) {
        int32_t end = top_folder_end(f, from);
        int32_t low = from, high = end;
        while (low < high) {
            int32_t mid = low + (high - low) / 2;
            int c = compare_bytes(f->bytes + f->starts[mid], path, n);
            if (c == 0) return mid;
            if (c < 0) low = mid + 1;
            else high = mid;
        }
        from = end;
    }
    return -1;
}

void vs_files_top_range(const vs_files *f, const char *top, int32_t *from, int32_t *to) {
    size_t n = strlen(top);
    *from = *to = 0;
    for (int32_t at = 0; at < f->count;) {
        int32_t end = top_folder_end(f, at);
        const char *first = f->bytes + f->starts[at];
        if (strncmp(first, top, n) == 0 && first[n] == '/') {
            *from = at;
            *to = end;
            return;
        }
        at = end;
    }
}

void vs_files_stamp_some(const vs_files *f, const int32_t *positions, int32_t n, vs_stamp *out) {
    for (int32_t i = 0; i < n; i++) stamp_range(f, positions[i], positions[i] + 1, out + i);
}
