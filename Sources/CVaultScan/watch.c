// The search index's watcher: a process per vault that watches `rooms/` and `diary/**` with
// inotify and tells a search which files changed since the last question it answered, so a
// repeated search need not stamp every file. The soundness argument is in
// Sources/VaultSearch/Index/README.md ("The watcher").
#define _GNU_SOURCE
#include "CVaultScan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { answer_magic = 0x31777376 };  // "vsw1"

/// The request: what the asker's index was last brought up to date against.
typedef struct request {
    uint64_t epoch, generation;
} request;

/// The answer's header; `count` paths follow, each ended by a NUL, `bytes` in all.
typedef struct answer_header {
    uint32_t magic, everything;
    uint64_t epoch, generation;
    uint32_t count, bytes;
} answer_header;

// MARK: - The watcher's state

typedef struct watch {
    int wd;
    char *path;  // relative to the root ("" for the root itself); NULL: slot free
    int seen;    // set by the walk that (re)adds the watches
} watch;

typedef struct change {
    char *path;  // NULL: empty slot
    uint64_t generation;
} change;

typedef struct watcher {
    const char *root;
    int inotify;
    int root_wd;
    watch *watches;
    int watch_count, watch_capacity;
    change *changes;  // open addressing, capacity a power of two
    int change_count, change_capacity, max_changes;
    uint64_t epoch, generation, reset;
    int structural;  // something the paths cannot say happened; the walk runs after the batch
    int root_gone;
} watcher;

static uint64_t hash_path(const char *p) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    return h ^ (h >> 31);
}

static void clear_changes(watcher *w) {
    for (int i = 0; i < w->change_capacity; i++) free(w->changes[i].path);
    memset(w->changes, 0, sizeof(change) * (size_t)w->change_capacity);
    w->change_count = 0;
}

/// Notes that `path` changed now; too many paths make it structural (they are dropped).
static void note_change(watcher *w, const char *path) {
    w->generation++;
    uint64_t mask = (uint64_t)w->change_capacity - 1;
    for (uint64_t i = hash_path(path) & mask;; i = (i + 1) & mask) {
        change *c = &w->changes[i];
        if (!c->path) {
            if (w->change_count >= w->max_changes || (c->path = strdup(path)) == NULL) {
                w->structural = 1;
                return;
            }
            w->change_count++;
        } else if (strcmp(c->path, path) != 0) {
            continue;
        }
        c->generation = w->generation;
        return;
    }
}

static watch *find_watch(watcher *w, int wd) {
    for (int i = 0; i < w->watch_count; i++) {
        if (w->watches[i].path && w->watches[i].wd == wd) return &w->watches[i];
    }
    return NULL;
}

static const uint32_t folder_events = IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                                      IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;

/// Watches the folder `rel` (relative to the root); -1 when it cannot, -2 when this walk watched
/// it already by another path (a bind mount: the listing lists such a folder once, by the path it
/// met first, and so do the paths the watcher reports).
static int add_watch(watcher *w, const char *rel, int top) {
    size_t n = strlen(w->root) + strlen(rel) + 2;
    char *full = malloc(n);
    if (!full) return -1;
    snprintf(full, n, "%s/%s", w->root, rel);
    // A top folder may be a symbolic link to a folder (the listing follows it); others not.
    int wd = inotify_add_watch(w->inotify, full, folder_events | IN_ONLYDIR | (top ? 0 : IN_DONT_FOLLOW));
    free(full);
    if (wd < 0) return -1;
    watch *known = find_watch(w, wd);
    if (known) {
        if (known->seen) return -2;
        if (strcmp(known->path, rel) != 0) {
            char *p = strdup(rel);
            if (!p) return -1;
            free(known->path);
            known->path = p;
        }
        known->seen = 1;
        return wd;
    }
    if (w->watch_count == w->watch_capacity) {
        int cap = w->watch_capacity ? w->watch_capacity * 2 : 64;
        watch *grown = realloc(w->watches, sizeof(watch) * (size_t)cap);
        if (!grown) return -1;
        w->watches = grown;
        w->watch_capacity = cap;
    }
    char *p = strdup(rel);
    if (!p) return -1;
    w->watches[w->watch_count++] = (watch){wd, p, 1};
    return wd;
}

/// Watches `rel` and, with `recursive`, every folder under it that the listing reads (names
/// not starting with a dot). The watch comes before the folder is read: a subfolder made while
/// it is read is either read or reported. Returns -1 when a folder that exists could not be
/// watched (then the watcher cannot vouch for it).
static int walk(watcher *w, const char *rel, int recursive, int top) {
    errno = 0;
    int wd = add_watch(w, rel, top);
    if (wd == -2) return 0;
    if (wd < 0) return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    if (!recursive) return 0;
    size_t n = strlen(w->root) + strlen(rel) + 2;
    char *full = malloc(n);
    if (!full) return -1;
    snprintf(full, n, "%s/%s", w->root, rel);
    DIR *dir = opendir(full);
    free(full);
    if (!dir) return 0;  // gone meanwhile: its watch reports it
    int result = 0;
    struct dirent *e;
    while (result == 0 && (e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.' || e->d_name[0] == 0) continue;
        if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) continue;
        size_t m = strlen(rel) + strlen(e->d_name) + 2;
        char *sub = malloc(m);
        if (!sub) {
            result = -1;
            break;
        }
        snprintf(sub, m, "%s/%s", rel, e->d_name);
        if (e->d_type == DT_UNKNOWN) {
            struct stat st;
            char *whole = malloc(strlen(w->root) + m + 1);
            int is_dir = 0;
            if (whole) {
                sprintf(whole, "%s/%s", w->root, sub);
                is_dir = lstat(whole, &st) == 0 && S_ISDIR(st.st_mode);
            }
            free(whole);
            if (!is_dir) {
                free(sub);
                continue;
            }
        }
        result = walk(w, sub, 1, 0);
        free(sub);
    }
    closedir(dir);
    return result;
}

/// (Re)adds every watch, and drops those of folders no longer in the tree (moved out).
static int walk_all(watcher *w) {
    for (int i = 0; i < w->watch_count; i++) w->watches[i].seen = 0;
    int root_wd = inotify_add_watch(w->inotify, w->root, IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                                             IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR);
    if (root_wd < 0) return -1;
    w->root_wd = root_wd;
    if (walk(w, "rooms", 1, 1) != 0 || walk(w, "diary", 1, 1) != 0) return -1;
    for (int i = 0; i < w->watch_count; i++) {
        if (w->watches[i].path && !w->watches[i].seen) {
            inotify_rm_watch(w->inotify, w->watches[i].wd);
            free(w->watches[i].path);
            w->watches[i].path = NULL;
        }
    }
    return 0;
}

/// Whether `name` is one the listing could give: `*.md`, not hidden.
static int listed_name(const char *name) {
    size_t n = strlen(name);
    return name[0] != '.' && n > 3 && memcmp(name + n - 3, ".md", 3) == 0;
}

static void handle(watcher *w, const struct inotify_event *e) {
    if (e->mask & IN_Q_OVERFLOW) {
        w->structural = 1;
        return;
    }
    if (e->wd == w->root_wd) {
        if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED)) {
            w->root_gone = 1;
        } else if (e->len && (strcmp(e->name, "rooms") == 0 || strcmp(e->name, "diary") == 0)) {
            w->structural = 1;  // a top folder made, removed, renamed, or its mode changed
        }
        return;
    }
    watch *at = find_watch(w, e->wd);
    if (e->mask & IN_IGNORED) {
        // The watch is gone (its folder removed, or the file system unmounted).
        if (at) {
            free(at->path);
            at->path = NULL;
        }
        w->structural = 1;
        return;
    }
    if (!at) return;
    if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) {
        w->structural = 1;
        return;
    }
    if (!e->len) return;  // the folder's own attributes: nothing the listing reads
    if (e->mask & IN_ISDIR) {
        // A subfolder made, removed or renamed under rooms/ or diary/ (both are read at any depth).
        if (e->name[0] != '.') w->structural = 1;
        return;
    }
    if (!listed_name(e->name)) return;
    size_t n = strlen(at->path) + e->len + 2;
    char *path = malloc(n);
    if (!path) {
        w->structural = 1;
        return;
    }
    snprintf(path, n, "%s/%s", at->path, e->name);
    note_change(w, path);
    free(path);
}

/// Reads every event queued, to EAGAIN. After a batch with something structural, the watches
/// are added again and the reset generation moves to now: a question from before it gets
/// "everything".
static void drain(watcher *w) {
    char buffer[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(w->inotify, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        for (char *p = buffer; p < buffer + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            handle(w, e);
            p += sizeof(struct inotify_event) + e->len;
        }
    }
    if (w->structural && !w->root_gone) {
        if (walk_all(w) != 0) w->root_gone = 1;  // cannot watch: stop, searches check every file
        w->generation++;
        w->reset = w->generation;
        clear_changes(w);
        w->structural = 0;
    }
}

static int64_t monotonic_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/// Writes all of `p`, or fails.
static int write_all(int fd, const void *p, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t k = send(fd, (const char *)p + done, n - done, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        done += (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t k = recv(fd, (char *)p + done, n - done, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        done += (size_t)k;
    }
    return 0;
}

/// Answers one question on the connection `fd`: only the watcher's own user may ask.
static void answer(watcher *w, int fd) {
    struct ucred peer;
    socklen_t length = sizeof peer;
    struct timeval timeout = {2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.uid != geteuid()) return;
    request q;
    if (read_all(fd, &q, sizeof q) != 0) return;
    // Every write that completed before the question was sent has its event queued by now.
    drain(w);
    answer_header h = {answer_magic, 0, w->epoch, w->generation, 0, 0};
    h.everything = q.epoch != w->epoch || q.generation < w->reset || q.generation > w->generation;
    size_t bytes = 0;
    if (!h.everything) {
        for (int i = 0; i < w->change_capacity; i++) {
            const change *c = &w->changes[i];
            if (c->path && c->generation > q.generation) {
                h.count++;
                bytes += strlen(c->path) + 1;
            }
        }
    }
    char *body = malloc(bytes ? bytes : 1);
    if (!body) {
        h.everything = 1, h.count = 0, bytes = 0;
    } else {
        size_t at = 0;
        for (int i = 0; !h.everything && i < w->change_capacity; i++) {
            const change *c = &w->changes[i];
            if (c->path && c->generation > q.generation) {
                size_t n = strlen(c->path) + 1;
                memcpy(body + at, c->path, n);
                at += n;
            }
        }
    }
    h.bytes = (uint32_t)bytes;
    if (write_all(fd, &h, sizeof h) == 0 && bytes) write_all(fd, body, bytes);
    free(body);
}

/// Whether the file system of `path` reports every change to inotify: local ones only (a
/// network or FUSE file system can change without an event).
static int local_file_system(const char *path) {
    struct statfs s;
    if (statfs(path, &s) != 0) return errno == ENOENT;
    switch ((unsigned long)s.f_type) {
    case 0xEF53:      // ext2, ext3, ext4
    case 0x58465342:  // xfs
    case 0x9123683E:  // btrfs
    case 0x01021994:  // tmpfs
    case 0xF2F52010:  // f2fs
    case 0x794C7630:  // overlayfs
    case 0x2FC12FC1:  // zfs
        return 1;
    default:
        return 0;
    }
}

int vs_local_file_system(const char *root) {
    size_t n = strlen(root) + 16;
    char *p = malloc(n);
    if (!p) return 0;
    int ok = local_file_system(root);
    snprintf(p, n, "%s/rooms", root);
    ok = ok && local_file_system(p);
    snprintf(p, n, "%s/diary", root);
    ok = ok && local_file_system(p);
    // Searched with the rooms (not watched: a search stamps its files every time).
    snprintf(p, n, "%s/volumes", root);
    ok = ok && local_file_system(p);
    free(p);
    return ok;
}

static int socket_address(const char *path, struct sockaddr_un *address) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address->sun_path) return -1;
    strcpy(address->sun_path, path);
    return 0;
}

/// Whether `path` is still the file `known` describes.
static int same_file(const char *path, const struct stat *known) {
    struct stat st;
    return stat(path, &st) == 0 && st.st_dev == known->st_dev && st.st_ino == known->st_ino;
}

int vs_watch_run(const char *root, const char *socket_path, const char *lock_path, int ready_fd, int64_t idle_ms,
                 int32_t max_paths) {
    struct sockaddr_un address;
    if (socket_address(socket_path, &address) != 0 || !vs_local_file_system(root)) return 2;
    // One watcher a vault: the lock is held for the watcher's life, and the kernel lets it go
    // when the process ends however it ends. A second one started at the same moment waits a
    // little (the first may be ending), then leaves the vault to the first.
    int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0) return 2;
    int locked = 0;
    for (int tries = 0; tries < 50 && !locked; tries++) {
        locked = flock(lock, LOCK_EX | LOCK_NB) == 0;
        if (!locked) usleep(20000);
    }
    if (!locked) return 0;
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    if (chdir("/") != 0) return 2;

    watcher w = {0};
    w.root = root;
    w.max_changes = max_paths > 0 ? max_paths : 10000;
    w.change_capacity = 64;
    while (w.change_capacity < w.max_changes * 2) w.change_capacity *= 2;
    w.changes = calloc((size_t)w.change_capacity, sizeof(change));
    w.inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (!w.changes || w.inotify < 0) return 2;
    if (getrandom(&w.epoch, sizeof w.epoch, 0) != sizeof w.epoch) w.epoch = (uint64_t)monotonic_ms() * 2654435761u;
    if (w.epoch == 0) w.epoch = 1;  // epoch 0 is the asker's "never asked"
    // The watches exist before anyone can ask: the first answer covers what follows it.
    if (walk_all(&w) != 0) return 2;
    w.generation = 1;
    w.reset = 1;

    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0) return 2;
    unlink(socket_path);  // a dead watcher's (the lock is ours)
    mode_t mask = umask(0077);
    int bound = bind(listener, (struct sockaddr *)&address, sizeof address);
    umask(mask);
    if (bound != 0 || listen(listener, 16) != 0) return 2;
    // The socket's file, to notice it removed (the cache folder deleted: a new watcher may then
    // start with a new lock) and to remove only this watcher's own at the end.
    struct stat own;
    if (stat(socket_path, &own) != 0) return 2;
    if (ready_fd >= 0) {
        char ready = 'r';
        while (write(ready_fd, &ready, 1) < 0 && errno == EINTR) {}
        close(ready_fd);
    }
    int64_t last_question = monotonic_ms();
    int status = 0;
    while (!w.root_gone) {
        int64_t left = idle_ms - (monotonic_ms() - last_question);
        if (left <= 0 || !same_file(socket_path, &own)) break;
        struct pollfd fds[2] = {{w.inotify, POLLIN, 0}, {listener, POLLIN, 0}};
        int n = poll(fds, 2, left > 60000 ? 60000 : (int)left);
        if (n < 0 && errno != EINTR) {
            status = 2;
            break;
        }
        if (n <= 0) continue;
        if (fds[0].revents) drain(&w);
        if (fds[1].revents & POLLIN) {
            int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
            if (fd >= 0) {
                answer(&w, fd);
                close(fd);
                last_question = monotonic_ms();
            }
        }
    }
    if (same_file(socket_path, &own)) unlink(socket_path);
    close(listener);
    return status;
}

int vs_watch_ask(const char *socket_path, uint64_t epoch, uint64_t generation, vs_watch_answer *out) {
    memset(out, 0, sizeof *out);
    struct sockaddr_un address;
    if (socket_address(socket_path, &address) != 0) return -2;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -2;
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int missing = errno == ENOENT || errno == ECONNREFUSED;
        close(fd);
        return missing ? -1 : -2;
    }
    struct timeval timeout = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    request q = {epoch, generation};
    answer_header h;
    int ok = write_all(fd, &q, sizeof q) == 0 && read_all(fd, &h, sizeof h) == 0 && h.magic == answer_magic &&
             h.bytes < (1u << 30);
    if (ok) {
        out->paths = malloc(h.bytes + 1);
        ok = out->paths && read_all(fd, out->paths, h.bytes) == 0;
    }
    close(fd);
    if (!ok) {
        free(out->paths);
        out->paths = NULL;
        return -1;  // a watcher that ended while asked: as if none
    }
    out->everything = (int32_t)h.everything;
    out->epoch = h.epoch;
    out->generation = h.generation;
    out->count = (int32_t)h.count;
    out->bytes = h.bytes;
    // Every path is ended by a NUL: checked, so the caller can read them as C strings.
    uint32_t nuls = 0;
    for (uint32_t i = 0; i < h.bytes; i++) nuls += out->paths[i] == 0;
    if (nuls != h.count || (h.bytes && out->paths[h.bytes - 1] != 0)) {
        vs_watch_answer_free(out);
        return -1;
    }
    return 0;
}

void vs_watch_answer_free(vs_watch_answer *answer) {
    free(answer->paths);
    answer->paths = NULL;
}

int vs_watch_spawn(char *const argv[], int *ready_fd) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    // Its own session (no terminal's signals), standard streams to /dev/null (never a pipe a
    // search's reader waits on), the pipe that says "ready" as descriptor 3, nothing else.
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 3);
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);
    pid_t pid;
    int failed = posix_spawn(&pid, argv[0], &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(pipe_fds[1]);
    if (failed) {
        close(pipe_fds[0]);
        return -1;
    }
    *ready_fd = pipe_fds[0];
    return pid;
}

int vs_watch_wait_ready(int ready_fd, int timeout_ms) {
    struct pollfd p = {ready_fd, POLLIN, 0};
    int64_t deadline = monotonic_ms() + timeout_ms;
    int ready = 0;
    for (;;) {
        int64_t left = deadline - monotonic_ms();
        if (left <= 0) break;
        int n = poll(&p, 1, (int)left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        char c;
        ssize_t k = read(ready_fd, &c, 1);
        if (k < 0 && errno == EINTR) continue;
        ready = k == 1;
        break;
    }
    close(ready_fd);
    return ready;
}
