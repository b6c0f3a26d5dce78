// CGit2Loader: libgit2, loaded with dlopen when vault first needs it instead of linked.
//
// The git_* functions of <git2.h> that vault calls are defined by this target (trampolines.c,
// generated): each loads libgit2 if that has not happened yet and calls the real function.
// Call cvault_git2_load() first wherever a missing libgit2 must be an error rather than the
// end of the process (a trampoline that finds no library prints one line and exits with 1).
#ifndef CGIT2LOADER_H
#define CGIT2LOADER_H

#include <git2.h>
#include <git2/sys/odb_backend.h>

// Loads libgit2.so.<LIBGIT2_SOVERSION> and finds every function vault calls in it, once per
// process (later calls wait for the first). NULL when loaded; otherwise why not, one line
// naming the library and the Debian package that has it.
const char *cvault_git2_load(void);

// Starts cvault_git2_load() on a new thread of its own and returns at once; the thread then
// calls `then` (if not NULL) whether or not loading worked. Only the first call does anything. A thread of its own rather than
// a dispatch queue: libdispatch's first worker often started only 1-3 ms later.
void cvault_git2_load_in_background(void (*then)(void));

// Hands `work` to the thread that started loading libgit2 with the process (for commands that
// use git): it runs `work(context)` once libgit2 is loaded. 0 when there is no such thread,
// or it was given work already: the caller runs `work` some other way.
int cvault_git2_hand_over(void (*work)(void *), void *context);

// The library's dlopen handle (searches libgit2 and the libraries it loaded), NULL until loaded.
void *cvault_git2_library(void);

// git_libgit2_opts, which is variadic and so has no trampoline: the real function (loaded
// first; the process ends as a trampoline's would if it cannot be). Call it from C with the
// argument types the option takes.
int (*cvault_git2_git_libgit2_opts(void))(int option, ...);

#endif
