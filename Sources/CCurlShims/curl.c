// libcurl, loaded when the first request is made, and its variadic calls, typed. See README.md.
#include "CCurlShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// Linking libcurl would load it and the ~25 libraries it pulls in (GnuTLS, Kerberos, LDAP,
// ...) at the start of every `vault` command, about 4 ms, though only a chat turn with a
// network provider uses it.

static struct {
    void *library;
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd fds[], unsigned int count, int timeout_ms, int *ready);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *left);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    char error[512];
} curl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void load_curl(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(curl.error, sizeof curl.error, "%s (install libcurl4)", dlerror());
        return;
    }
#define CVAULT_LOAD(field, name)                                                                    \
    *(void **)(&curl.field) = dlsym(library, name);                                                 \
    if (!curl.field) {                                                                              \
        snprintf(curl.error, sizeof curl.error, "libcurl.so.4 has no %s", name);                    \
        dlclose(library);                                                                           \
        return;                                                                                     \
    }
    CVAULT_LOAD(global_init, "curl_global_init")
    CVAULT_LOAD(easy_init, "curl_easy_init")
    CVAULT_LOAD(easy_cleanup, "curl_easy_cleanup")
    CVAULT_LOAD(easy_setopt, "curl_easy_setopt")
    CVAULT_LOAD(easy_getinfo, "curl_easy_getinfo")
    CVAULT_LOAD(easy_strerror, "curl_easy_strerror")
    CVAULT_LOAD(slist_append, "curl_slist_append")
    CVAULT_LOAD(slist_free_all, "curl_slist_free_all")
    CVAULT_LOAD(multi_init, "curl_multi_init")
    CVAULT_LOAD(multi_add_handle, "curl_multi_add_handle")
    CVAULT_LOAD(multi_remove_handle, "curl_multi_remove_handle")
    CVAULT_LOAD(multi_perform, "curl_multi_perform")
    CVAULT_LOAD(multi_poll, "curl_multi_poll")  // libcurl 7.66 (2019) or later
    CVAULT_LOAD(multi_info_read, "curl_multi_info_read")
    CVAULT_LOAD(multi_cleanup, "curl_multi_cleanup")
#undef CVAULT_LOAD
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(curl.error, sizeof curl.error, "curl_global_init failed");
        return;
    }
    curl.library = library;
}

const char *cvault_curl_load(void) {
    pthread_once(&curl_once, load_curl);
    return curl.library ? NULL : curl.error;
}

CURL *cvault_curl_easy_init(void) { return cvault_curl_load() ? NULL : curl.easy_init(); }
void cvault_curl_easy_cleanup(CURL *handle) {
    if (handle && curl.library) curl.easy_cleanup(handle);
}
const char *cvault_curl_easy_strerror(CURLcode code) {
    return curl.library ? curl.easy_strerror(code) : "libcurl is not loaded";
}
struct curl_slist *cvault_curl_slist_append(struct curl_slist *list, const char *text) {
    return cvault_curl_load() ? NULL : curl.slist_append(list, text);
}
void cvault_curl_slist_free_all(struct curl_slist *list) {
    if (list && curl.library) curl.slist_free_all(list);
}

CURLcode cvault_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.library ? curl.easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode cvault_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl.library ? curl.easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode cvault_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl.library ? curl.easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode cvault_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.library ? curl.easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode cvault_curl_setopt_write_function(CURL *handle, cvault_curl_data_callback callback) {
    return curl.library ? curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback) : CURLE_FAILED_INIT;
}
CURLcode cvault_curl_setopt_header_function(CURL *handle, cvault_curl_data_callback callback) {
    return curl.library ? curl.easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback) : CURLE_FAILED_INIT;
}
CURLcode cvault_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.library ? curl.easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}
CURLcode cvault_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl.library ? curl.easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}

CURLcode cvault_curl_perform_polling(CURL *handle, int interval_ms, int (*tick)(void *context), void *context) {
    if (!curl.library) return CURLE_FAILED_INIT;
    CURLM *multi = curl.multi_init();
    if (!multi) return CURLE_OUT_OF_MEMORY;
    if (curl.multi_add_handle(multi, handle) != CURLM_OK) {
        curl.multi_cleanup(multi);
        return CURLE_FAILED_INIT;
    }
    CURLcode result = CURLE_OK;
    int finished = 0;
    for (;;) {
        int running = 0;
        if (curl.multi_perform(multi, &running) != CURLM_OK) {
            result = CURLE_FAILED_INIT;
            break;
        }
        int left = 0;
        CURLMsg *message;
        while ((message = curl.multi_info_read(multi, &left)) != NULL) {
            if (message->msg == CURLMSG_DONE && message->easy_handle == handle) {
                result = message->data.result;
                finished = 1;
            }
        }
        if (finished || running == 0) break;
        if (tick(context) != 0) {
            result = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        if (curl.multi_poll(multi, NULL, 0, interval_ms, NULL) != CURLM_OK) {
            result = CURLE_FAILED_INIT;
            break;
        }
    }
    curl.multi_remove_handle(multi, handle);
    curl.multi_cleanup(multi);
    return result;
}
