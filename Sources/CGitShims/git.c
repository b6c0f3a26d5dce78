// libgit2's variadic git_libgit2_opts, typed; libgit2's start-up without the CA bundle.
// See README.md.
#define _GNU_SOURCE  // RTLD_NEXT
#include "CGitShims.h"

#include <CGit2Loader.h>

#include <dlfcn.h>
#include <stdatomic.h>

// ---- git_libgit2_opts by option -------------------------------------------------------------
// libgit2 is loaded at run time (CGit2Loader), and a variadic function cannot be passed on by
// a trampoline: these call the loaded git_libgit2_opts through its pointer.
int cvault_git_set_strict_object_creation(int enabled) {
    return cvault_git2_git_libgit2_opts()(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, enabled);
}
int cvault_git_set_strict_hash_verification(int enabled) {
    return cvault_git2_git_libgit2_opts()(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, enabled);
}
int cvault_git_set_fsync_gitdir(int enabled) {
    return cvault_git2_git_libgit2_opts()(GIT_OPT_ENABLE_FSYNC_GITDIR, enabled);
}
int cvault_git_set_cache_object_limit(int type, size_t size) {
    return cvault_git2_git_libgit2_opts()(GIT_OPT_SET_CACHE_OBJECT_LIMIT, (git_object_t)type, size);
}

// ---- libgit2's start-up without the TLS certificates ----------------------------------------
// Debian's libgit2 (mbedTLS) parses the system's CA bundle in git_libgit2_init: ~4 ms of
// every command that touches git, for HTTPS connections vault never makes through libgit2
// (sync's network transports are the `git` command). libgit2 has no option to skip it, so
// vault's executable defines mbedTLS's two loading functions itself (the executable's symbols
// come first when libgit2's calls are bound, also when libgit2 is loaded with dlopen after
// start-up, as CGit2Loader does): while cvault_git_init runs, they load nothing (libgit2 keeps
// an empty CA chain); at any other time they pass the call on to mbedTLS. A libgit2 built on
// OpenSSL never calls these.

static atomic_int skipping_certificates;

typedef int (*mbedtls_loader)(void *chain, const char *location);

static int pass_on(const char *name, void *chain, const char *location) {
    // mbedTLS was loaded with libgit2, privately (RTLD_LOCAL): only libgit2's handle finds it.
    void *library = cvault_git2_library();
    mbedtls_loader real;
    *(void **)(&real) = dlsym(library ? library : RTLD_NEXT, name);
    return real ? real(chain, location) : -0x2900;  // MBEDTLS_ERR_X509_FILE_IO_ERROR
}

int mbedtls_x509_crt_parse_file(void *chain, const char *path) {
    if (atomic_load(&skipping_certificates)) return 0;
    return pass_on("mbedtls_x509_crt_parse_file", chain, path);
}

int mbedtls_x509_crt_parse_path(void *chain, const char *path) {
    if (atomic_load(&skipping_certificates)) return 0;
    return pass_on("mbedtls_x509_crt_parse_path", chain, path);
}

int cvault_git_init(void) {
    const char *problem = cvault_git2_load();
    if (problem) return -1;
    atomic_store(&skipping_certificates, 1);
    int result = git_libgit2_init();
    atomic_store(&skipping_certificates, 0);
    return result;
}
