// CCurlShims: libcurl for Swift. libcurl is not linked (it and the ~20 libraries it pulls in
// cost ~4 ms at the start of every command): the first call here loads libcurl.so.4. Its
// variadic calls, which Swift cannot make (curl_easy_setopt, curl_easy_getinfo), get one typed
// wrapper per argument type. Nothing else belongs here.
#ifndef CCURLSHIMS_H
#define CCURLSHIMS_H

#include <curl/curl.h>

// ---- libcurl: loaded on first use -----------------------------------------
// libcurl is not linked: the first of these calls loads libcurl.so.4 (and runs
// curl_global_init once). cvault_curl_load() says why it could not (NULL when loaded);
// the others fail with NULL or CURLE_FAILED_INIT then.
const char *cvault_curl_load(void);
CURL *cvault_curl_easy_init(void);
void cvault_curl_easy_cleanup(CURL *handle);
const char *cvault_curl_easy_strerror(CURLcode code);
struct curl_slist *cvault_curl_slist_append(struct curl_slist *list, const char *text);
void cvault_curl_slist_free_all(struct curl_slist *list);

// ---- libcurl: curl_easy_setopt by argument type -------------------------
CURLcode cvault_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode cvault_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode cvault_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode cvault_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);

typedef size_t (*cvault_curl_data_callback)(char *data, size_t size, size_t count, void *context);
CURLcode cvault_curl_setopt_write_function(CURL *handle, cvault_curl_data_callback callback);
CURLcode cvault_curl_setopt_header_function(CURL *handle, cvault_curl_data_callback callback);

// curl_easy_getinfo is variadic too.
CURLcode cvault_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode cvault_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);

// curl_easy_perform, made through the multi interface so the caller is called back every
// `interval_ms` at most while nothing arrives (curl_easy_perform's progress callback comes
// about once a second when idle, too late for Ctrl-C and for time-outs kept in tenths of a
// second). `tick` returns non-zero to stop the transfer (CURLE_ABORTED_BY_CALLBACK).
CURLcode cvault_curl_perform_polling(CURL *handle, int interval_ms, int (*tick)(void *context), void *context);

#endif
