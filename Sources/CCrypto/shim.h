// SHA-1 through OpenSSL's direct functions (SHA1_Init/Update/Final). They are deprecated in
// OpenSSL 3 in favour of EVP, but EVP's first use loads OpenSSL's providers and reads
// openssl.cnf (~1.1 ms, on every vault command that commits); the direct functions run the
// same hardware-accelerated code with no set-up (0.01 ms).
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>
