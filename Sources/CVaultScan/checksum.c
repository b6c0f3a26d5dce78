// CRC-32C (Castagnoli) of a buffer: the checksum of the listing cache, checked each time the
// cache is opened, so a line damaged in place is never taken as a file's summary. With SSE 4.2
// the processor's crc32 instruction does 8 bytes at a time; elsewhere a table, a byte at a time.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "CVaultScan.h"

#if defined(__x86_64__)
#include <nmmintrin.h>

#include "cpu.h"

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const unsigned char *p, size_t n) {
    uint64_t c = crc;
    while (n >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
        p += 8;
        n -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (n > 0) {
        c32 = _mm_crc32_u8(c32, *p++);
        n--;
    }
    return c32;
}
#endif

static uint32_t crc32c_table[256];
static int crc32c_table_made;

static uint32_t crc32c_bytes(uint32_t crc, const unsigned char *p, size_t n) {
    if (!__atomic_load_n(&crc32c_table_made, __ATOMIC_ACQUIRE)) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
            crc32c_table[i] = c;
        }
        __atomic_store_n(&crc32c_table_made, 1, __ATOMIC_RELEASE);
    }
    while (n > 0) {
        crc = crc32c_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
        n--;
    }
    return crc;
}

uint32_t vs_crc32c(uint32_t crc, const unsigned char *p, size_t n) {
    crc = ~crc;
#if defined(__x86_64__)
    if (vs_has_sse42()) return ~crc32c_sse42(crc, p, n);
#endif
    return ~crc32c_bytes(crc, p, n);
}
