#define _GNU_SOURCE
#include "CVaultScan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/// A file to sort: the first 8 bytes of its path after `skip` (big-endian, so integers order as
/// the bytes do; shorter paths padded with zeros, which no path holds), and its position.
typedef struct sort_entry {
    uint64_t key;
    int32_t at;
} sort_entry;

typedef struct sort_context {
    const vs_files *files;
    size_t skip;
} sort_context;

static int by_path(const void *a, const void *b, void *context) {
    const sort_entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    const sort_context *c = context;
    const vs_files *f = c->files;
    return strcmp(f->bytes + f->starts[x->at] + c->skip, f->bytes + f->starts[y->at] + c->skip);
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
    // The bytes every path starts with (the folder's name) are skipped.
    const char *first = f->bytes + f->starts[from];
    size_t skip = strlen(first);
    for (int32_t i = from + 1; i < f->count && skip > 0; i++) {
        const char *p = f->bytes + f->starts[i];
        size_t k = 0;
        while (k < skip && p[k] == first[k]) k++;
        skip = k;
    }
    for (int32_t i = 0; i < n; i++) {
        const unsigned char *p = (const unsigned char *)f->bytes + f->starts[from + i] + skip;
        uint64_t key = 0;
        int k = 0;
        for (; k < 8 && p[k]; k++) key = key << 8 | p[k];
        key <<= 8 * (8 - k);
        order[i] = (sort_entry){key, from + i};
    }
    sort_context context = {f, skip};
    qsort_r(order, (size_t)n, sizeof(sort_entry), by_path, &context);
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

/// Folders kept open at most; the files of further folders are opened by their path from the root.
enum { kept_folders = 256 };

/// Lists the folder open as `fd` (named `prefix`, which ends with a slash, relative to the open
/// folder `root`), taking ownership of `fd`.
static int list_folder(vs_files *f, int root, int fd, char *prefix, size_t prefix_length, int recursive,
                       seen_dirs *seen) {
    struct stat st;
    if (fstat(fd, &st) != 0 || seen_before(seen, st.st_dev, st.st_ino)) {
        close(fd);
        return 0;
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
        if (sub < 0) continue;
        char *path = malloc(prefix_length + length + 2);
        if (!path) {
            close(sub);
            result = -1;
            break;
        }
        memcpy(path, prefix, prefix_length);
        memcpy(path + prefix_length, name, length);
        path[prefix_length + length] = '/';
        result = list_folder(f, root, sub, path, prefix_length + length + 1, recursive, seen);
        free(path);
    }
    free(subfolders);
    return result;
}

int vs_files_list(vs_files *f, int root, const char *folder, int recursive) {
    int32_t from = f->count;
    int fd = openat(root, folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t length = strlen(folder);
    char *prefix = malloc(length + 2);
    if (!prefix) {
        close(fd);
        return -1;
    }
    memcpy(prefix, folder, length);
    prefix[length] = '/';
    seen_dirs seen = {0};
    int result = list_folder(f, root, fd, prefix, length + 1, recursive, &seen);
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
