// CVaultShims: typed, non-variadic wrappers around the variadic C calls of
// libcurl and libgit2. Swift cannot call C variadic functions such as
// curl_easy_setopt() or git_libgit2_opts(), so each wrapper below fixes the
// argument type of one family of options. libcurl itself is loaded on first use
// (see below), so its few other calls are here too. Nothing else belongs here.
#ifndef CVAULTSHIMS_H
#define CVAULTSHIMS_H

#include <curl/curl.h>
#include <git2.h>

// ---- libcurl: loaded on first use -----------------------------------------
// libcurl is not linked: the first of these calls loads libcurl.so.4 (and runs
// curl_global_init once). cvault_curl_load() says why it could not (NULL when loaded);
// the others fail with NULL or CURLE_FAILED_INIT then.
const char *cvault_curl_load(void);
CURL *cvault_curl_easy_init(void);
void cvault_curl_easy_cleanup(CURL *handle);
CURLcode cvault_curl_easy_perform(CURL *handle);
const char *cvault_curl_easy_strerror(CURLcode code);
struct curl_slist *cvault_curl_slist_append(struct curl_slist *list, const char *text);
void cvault_curl_slist_free_all(struct curl_slist *list);

// ---- libcurl: curl_easy_setopt by argument type -------------------------
CURLcode cvault_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode cvault_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode cvault_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode cvault_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);

typedef size_t (*cvault_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*cvault_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                             curl_off_t ultotal, curl_off_t ulnow);
CURLcode cvault_curl_setopt_write_function(CURL *handle, cvault_curl_data_callback callback);
CURLcode cvault_curl_setopt_header_function(CURL *handle, cvault_curl_data_callback callback);
CURLcode cvault_curl_setopt_progress_function(CURL *handle, cvault_curl_progress_callback callback);

// curl_easy_getinfo is variadic too.
CURLcode cvault_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode cvault_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);

// curl_easy_perform, made through the multi interface so the caller is called back every
// `interval_ms` at most while nothing arrives (curl_easy_perform's progress callback comes
// about once a second when idle, too late for Ctrl-C and for time-outs kept in tenths of a
// second). `tick` returns non-zero to stop the transfer (CURLE_ABORTED_BY_CALLBACK).
CURLcode cvault_curl_perform_polling(CURL *handle, int interval_ms, int (*tick)(void *context), void *context);

// ---- libgit2: git_libgit2_opts by option -------------------------------
int cvault_git_set_strict_object_creation(int enabled);
int cvault_git_set_strict_hash_verification(int enabled);
int cvault_git_set_fsync_gitdir(int enabled);
int cvault_git_set_cache_object_limit(int type, size_t size);
int cvault_git_set_search_path(int level, const char *path);
int cvault_git_set_owner_validation(int enabled);

// ---- libgit2: start-up without loading the system's TLS certificates -----
// git_libgit2_init, except that a libgit2 built on mbedTLS does not parse the CA bundle
// (see shims.c). cvault_git_certificates_skipped() says whether it would have;
// cvault_git_load_certificates() loads them (for HTTPS through libgit2; 0 when done or not needed).
int cvault_git_init(void);
int cvault_git_certificates_skipped(void);
int cvault_git_load_certificates(void);
// The stand-ins themselves (mbedTLS's signatures, the chain left opaque): libgit2 reaches them
// because the `vault` executable exports them (Package.swift); outside cvault_git_init they
// pass the call on to mbedTLS.
int mbedtls_x509_crt_parse_file(void *chain, const char *path);
int mbedtls_x509_crt_parse_path(void *chain, const char *path);

#endif
