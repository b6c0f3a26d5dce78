// libgit2 loaded on first use: see README.md.
#include "loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
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
    // trampolines, CVaultShims' mbedTLS stand-ins) still come first when libgit2's
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

void cvault_git2_load_in_background(void (*then)(void)) {
    static atomic_flag started = ATOMIC_FLAG_INIT;
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
