#ifndef VAULT_CSQLITE_SHIM_H
#define VAULT_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <stddef.h>

#endif
