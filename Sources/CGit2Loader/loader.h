// What loader.c shares with the generated trampolines.c; not part of the module.
#ifndef CGIT2LOADER_LOADER_H
#define CGIT2LOADER_LOADER_H

#include "CGit2Loader.h"

#include <stdatomic.h>

#define CVAULT_HIDDEN __attribute__((visibility("hidden")))

// The functions to find, and where each pointer goes; ends with a null name (trampolines.c).
struct cvault_git2_symbol {
    const char *name;
    void **slot;
};
CVAULT_HIDDEN extern const struct cvault_git2_symbol cvault_git2_symbols[];

// 1 once every pointer is set.
CVAULT_HIDDEN extern atomic_int cvault_git2_loaded;

// Loads the library, or prints why it cannot and ends the process (status 1).
CVAULT_HIDDEN void cvault_git2_require(void);

#define CVAULT_GIT2_REQUIRE()                                                                       \
    do {                                                                                            \
        if (__builtin_expect(!atomic_load_explicit(&cvault_git2_loaded, memory_order_acquire), 0))  \
            cvault_git2_require();                                                                  \
    } while (0)

#endif
