// libFuzzer's driver, for `vault-fuzz` built with -sanitize=fuzzer (scripts/fuzz.sh): SwiftPM
// names an executable's entry point `<module>_main` and links `main` to it, so libFuzzer's own
// `main` is not used; `vault_fuzz_main` calls the driver instead. Not linked in other builds.
#ifndef CVAULTFUZZER_H
#define CVAULTFUZZER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));

#endif
