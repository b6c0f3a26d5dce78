// CGitShims: what Swift cannot call in libgit2 (loaded by CGit2Loader), made callable:
// git_libgit2_opts, which is variadic, as one typed function per option vault sets; and
// git_libgit2_init without parsing the system's TLS certificates. Nothing else belongs here.
#ifndef CGITSHIMS_H
#define CGITSHIMS_H

#include <git2.h>

// ---- git_libgit2_opts by option -----------------------------------------
// git_libgit2_opts(option, ...) is variadic: reached through cvault_git2_git_libgit2_opts(), the
// pointer CGit2Loader finds (scripts/generate-git2-trampolines.py finds the name here).
int cvault_git_set_strict_object_creation(int enabled);
int cvault_git_set_strict_hash_verification(int enabled);
int cvault_git_set_fsync_gitdir(int enabled);
int cvault_git_set_cache_object_limit(int type, size_t size);

// ---- start-up without loading the system's TLS certificates -------------
// Loads libgit2 (CGit2Loader) and runs git_libgit2_init, except that a libgit2 built on mbedTLS
// does not parse the CA bundle (see git.c): -1 when libgit2 cannot be loaded.
int cvault_git_init(void);
// The stand-ins themselves (mbedTLS's signatures, the chain left opaque): libgit2 reaches them
// because the `vault` executable exports them (Package.swift); outside cvault_git_init they
// pass the call on to mbedTLS.
int mbedtls_x509_crt_parse_file(void *chain, const char *path);
int mbedtls_x509_crt_parse_path(void *chain, const char *path);

#endif
