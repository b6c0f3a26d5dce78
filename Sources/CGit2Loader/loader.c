// libgit2 loaded on first use: see README.md.
#include "git_commands.h"
#include "loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LIBRARY "libgit2.so." LIBGIT2_SOVERSION
#define PACKAGE "libgit2-" LIBGIT2_SOVERSION

atomic_int cvault_git2_loaded;
static void *library;
static char problem[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // RTLD_LOCAL: libgit2's names stay out of the global scope, so nothing but the pointers
    // found below reaches the real functions. The executable's own definitions (the
    // trampolines, CGitShims' mbedTLS stand-ins) still come first when libgit2's
    // references are bound, as they did when libgit2 was linked.
    void *handle = dlopen(LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(problem, sizeof problem, "cannot load libgit2 (%s): install the Debian package " PACKAGE,
                 why ? why : LIBRARY);
        return;
    }
    // dlsym on the handle searches libgit2 and its own libraries, never the executable: each
    // pointer is the real function, not the trampoline of the same name.
    for (const struct cvault_git2_symbol *symbol = cvault_git2_symbols; symbol->name; symbol++) {
        *symbol->slot = dlsym(handle, symbol->name);
        if (!*symbol->slot) {
            snprintf(problem, sizeof problem,
                     "cannot use libgit2: " LIBRARY " has no %s (vault needs libgit2 " LIBGIT2_VERSION
                     ", the Debian package " PACKAGE ")",
                     symbol->name);
            dlclose(handle);
            return;
        }
    }
    library = handle;
    atomic_store_explicit(&cvault_git2_loaded, 1, memory_order_release);
}

const char *cvault_git2_load(void) {
    if (atomic_load_explicit(&cvault_git2_loaded, memory_order_acquire)) return NULL;
    pthread_once(&once, load);
    return atomic_load_explicit(&cvault_git2_loaded, memory_order_acquire) ? NULL : problem;
}

static void *load_then(void *then) {
    cvault_git2_load();
    void (*next)(void);
    *(void **)(&next) = then;
    if (next) next();
    return NULL;
}

static atomic_flag started = ATOMIC_FLAG_INIT;

// ---- Started with the process ---------------------------------------------------------------
// A command that commits or reads history (named by argv[1], after an optional `--vault DIR`;
// the names are VaultCommand.gitCommands, copied into git_commands.h by
// scripts/generate-git-commands.py) starts loading libgit2 from a constructor, before main: the load overlaps the Swift
// runtime's and Foundation's start-up and argument parsing. That thread then runs the one
// piece of work main hands it (cvault_git2_hand_over), e.g. opening the repository: main
// starts no thread of its own while libraries load (a new thread waits for the loader's lock).

static pthread_mutex_t early_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t early_posted = PTHREAD_COND_INITIALIZER;
static int early_running;
static void (*early_work)(void *);
static void *early_context;

static void *early_thread(void *unused) {
    (void)unused;
    cvault_git2_load();
    pthread_mutex_lock(&early_lock);
    while (!early_work) pthread_cond_wait(&early_posted, &early_lock);
    void (*work)(void *) = early_work;
    void *context = early_context;
    pthread_mutex_unlock(&early_lock);
    work(context);
    return NULL;
}

static int is_git_command(const char *name) {
    for (const char *const *n = cvault_git_commands; *n; n++)
        if (strcmp(name, *n) == 0) return 1;
    return 0;
}

__attribute__((constructor)) static void start_with_the_process(int argc, char **argv, char **envp) {
    (void)envp;
    int i = 1;
    if (i < argc && strcmp(argv[i], "--vault") == 0) {
        i += 2;
    } else if (i < argc && strncmp(argv[i], "--vault=", 8) == 0) {
        i += 1;
    }
    if (i >= argc || !is_git_command(argv[i])) return;
    if (atomic_flag_test_and_set(&started)) return;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    if (pthread_create(&thread, &attributes, early_thread, NULL) == 0) {
        early_running = 1;
    } else {
        atomic_flag_clear(&started);
    }
    pthread_attr_destroy(&attributes);
}

int cvault_git2_hand_over(void (*work)(void *), void *context) {
    if (!early_running) return 0;
    pthread_mutex_lock(&early_lock);
    int taken = early_work == NULL;
    if (taken) {
        early_work = work;
        early_context = context;
        pthread_cond_signal(&early_posted);
    }
    pthread_mutex_unlock(&early_lock);
    return taken;
}

void cvault_git2_load_in_background(void (*then)(void)) {
    if (atomic_flag_test_and_set(&started)) return;  // one thread at most
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    void *argument = *(void **)(&then);
    // Should no thread start, whoever needs libgit2 loads it then.
    (void)pthread_create(&thread, &attributes, load_then, argument);
    pthread_attr_destroy(&attributes);
}

void *cvault_git2_library(void) {
    return atomic_load_explicit(&cvault_git2_loaded, memory_order_acquire) ? library : NULL;
}

void cvault_git2_require(void) {
    const char *why = cvault_git2_load();
    if (!why) return;
    fflush(stdout);
    fprintf(stderr, "vault: error: %s\n", why);
    _exit(1);
}
