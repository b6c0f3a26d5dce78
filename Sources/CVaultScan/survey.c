#define _GNU_SOURCE
#include "CVaultScan.h"

#include <string.h>

#include "cpu.h"

static inline int flagged(const unsigned char *p, size_t i, size_t n) {
    unsigned char b = p[i];
    if ((b >= 0xC3 && b <= 0xE3) || b >= 0xEF) return 1;
    return b == 0xEA && (i + 1 >= n || p[i + 1] < 0xB0);
}

static size_t next_scalar(const unsigned char *p, size_t i, size_t n) {
    for (; i < n; i++) {
        if (flagged(p, i, n)) return i;
    }
    return n;
}

#if defined(__x86_64__)
// Unsigned comparisons as signed ones of the bytes with their top bit flipped.
static size_t next_sse2(const unsigned char *p, size_t i, size_t n) {
    const __m128i top = _mm_set1_epi8((char)0x80);
    const __m128i below_c3 = _mm_set1_epi8((char)(0xC2 ^ 0x80)), above_e3 = _mm_set1_epi8((char)(0xE4 ^ 0x80));
    const __m128i below_ef = _mm_set1_epi8((char)(0xEE ^ 0x80)), ea = _mm_set1_epi8((char)0xEA);
    const __m128i b0 = _mm_set1_epi8((char)(0xB0 ^ 0x80));
    while (i + 17 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i w = _mm_loadu_si128((const __m128i *)(p + i + 1));
        __m128i vs = _mm_xor_si128(v, top), ws = _mm_xor_si128(w, top);
        __m128i lead = _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(vs, below_c3), _mm_cmpgt_epi8(above_e3, vs)),
                                    _mm_cmpgt_epi8(vs, below_ef));
        __m128i hangul_or_not = _mm_and_si128(_mm_cmpeq_epi8(v, ea), _mm_cmpgt_epi8(b0, ws));
        int mask = _mm_movemask_epi8(_mm_or_si128(lead, hangul_or_not));
        if (mask) return i + (size_t)__builtin_ctz((unsigned)mask);
        i += 16;
    }
    return next_scalar(p, i, n);
}

__attribute__((target("avx2"))) static size_t next_avx2(const unsigned char *p, size_t i, size_t n) {
    const __m256i top = _mm256_set1_epi8((char)0x80);
    const __m256i below_c3 = _mm256_set1_epi8((char)(0xC2 ^ 0x80)), above_e3 = _mm256_set1_epi8((char)(0xE4 ^ 0x80));
    const __m256i below_ef = _mm256_set1_epi8((char)(0xEE ^ 0x80)), ea = _mm256_set1_epi8((char)0xEA);
    const __m256i b0 = _mm256_set1_epi8((char)(0xB0 ^ 0x80));
    while (i + 33 <= n) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i w = _mm256_loadu_si256((const __m256i *)(p + i + 1));
        __m256i vs = _mm256_xor_si256(v, top), ws = _mm256_xor_si256(w, top);
        __m256i lead = _mm256_or_si256(
            _mm256_and_si256(_mm256_cmpgt_epi8(vs, below_c3), _mm256_cmpgt_epi8(above_e3, vs)),
            _mm256_cmpgt_epi8(vs, below_ef));
        __m256i hangul_or_not = _mm256_and_si256(_mm256_cmpeq_epi8(v, ea), _mm256_cmpgt_epi8(b0, ws));
        unsigned mask = (unsigned)_mm256_movemask_epi8(_mm256_or_si256(lead, hangul_or_not));
        if (mask) return i + (size_t)__builtin_ctz(mask);
        i += 32;
    }
    return next_sse2(p, i, n);
}
#endif

size_t vs_next_survey_lead(const unsigned char *p, size_t i, size_t n) {
#if defined(__x86_64__)
    return vs_has_avx2() ? next_avx2(p, i, n) : next_sse2(p, i, n);
#else
    return next_scalar(p, i, n);
#endif
}

size_t vs_last_byte(const unsigned char *p, unsigned char byte, size_t n) {
    const unsigned char *at = memrchr(p, byte, n);
    return at ? (size_t)(at - p) : n;
}
