#ifndef VAULT_CSQLITE_SHIM_H
#define VAULT_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <stddef.h>

/* glibc's memmem (a GNU extension, which Swift's Glibc module does not declare): the search's
   byte scan uses it to find a pattern in a file's bytes. */
void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);

static inline void *vault_memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen) {
    return memmem(haystack, haystacklen, needle, needlelen);
}
#endif
