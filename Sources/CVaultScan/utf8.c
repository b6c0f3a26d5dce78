#define _GNU_SOURCE
#include "CVaultScan.h"

#include <string.h>

#include "cpu.h"

// UTF-8 validation: each hit's line is checked before it is kept (a file that is not UTF-8 is
// not searched). With AVX2, 32 bytes at a time by three nibble lookups (Keiser and Lemire,
// "Validating UTF-8 in less than one instruction per byte", 2021); else one code point at a
// time, runs of ASCII eight bytes at a time. Both accept exactly what Swift's `String(validating:)`
// accepts (no overlong forms, no surrogates, nothing above U+10FFFF).

static int valid_scalar(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        while (i + 8 <= n) {
            uint64_t word;
            memcpy(&word, p + i, 8);
            if (word & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i >= n) break;
        unsigned char b0 = p[i];
        if (b0 < 0x80) {
            i += 1;
        } else if (b0 < 0xC2) {
            return 0;
        } else if (b0 < 0xE0) {
            if (i + 1 >= n || (p[i + 1] & 0xC0) != 0x80) return 0;
            i += 2;
        } else if (b0 < 0xF0) {
            if (i + 2 >= n || (p[i + 1] & 0xC0) != 0x80 || (p[i + 2] & 0xC0) != 0x80) return 0;
            if (b0 == 0xE0 && p[i + 1] < 0xA0) return 0;
            if (b0 == 0xED && p[i + 1] >= 0xA0) return 0;
            i += 3;
        } else if (b0 < 0xF5) {
            if (i + 3 >= n || (p[i + 1] & 0xC0) != 0x80 || (p[i + 2] & 0xC0) != 0x80 || (p[i + 3] & 0xC0) != 0x80)
                return 0;
            if (b0 == 0xF0 && p[i + 1] < 0x90) return 0;
            if (b0 == 0xF4 && p[i + 1] >= 0x90) return 0;
            i += 4;
        } else {
            return 0;
        }
    }
    return 1;
}

#if defined(__x86_64__)
// What a pair of bytes (one and the next) can be wrong by, a bit each.
#define TOO_SHORT (1 << 0)   // 11______ then 0_______ or 11______
#define TOO_LONG (1 << 1)    // 0_______ then 10______
#define OVERLONG_3 (1 << 2)  // 11100000 100_____
#define TOO_LARGE (1 << 3)   // 11110100 1001____, 11110100 101_____, 11110101+ 10______
#define SURROGATE (1 << 4)   // 11101101 101_____
#define OVERLONG_2 (1 << 5)  // 1100000_ 10______
#define TOO_LARGE_1000 (1 << 6)  // 11110101+ 1000____
#define OVERLONG_4 (1 << 6)  // 11110000 1000____
#define TWO_CONTS (1 << 7)   // 10______ 10______ (right only as a third or fourth byte)
#define CARRY (TOO_SHORT | TOO_LONG | TWO_CONTS)

// By the high nibble of a byte, the low nibble of it, and the high nibble of the byte after it:
// what the pair can be wrong by (an error is a bit set in all three).
static const unsigned char byte_1_high[16] = {
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
    TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4};
static const unsigned char byte_1_low[16] = {
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY, CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000};
static const unsigned char byte_2_high[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT};
// The largest byte that ends a block with no sequence open past it, by place.
static const unsigned char last_places[32] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1};

typedef struct {
    __m256i error, previous, incomplete;
} utf8_state;

__attribute__((target("avx2"))) static inline __m256i before(__m256i input, __m256i previous, int k) {
    // The bytes `k` places before each byte of `input`, from `previous` for the first `k`.
    __m256i joined = _mm256_permute2x128_si256(previous, input, 0x21);
    switch (k) {
    case 1: return _mm256_alignr_epi8(input, joined, 15);
    case 2: return _mm256_alignr_epi8(input, joined, 14);
    default: return _mm256_alignr_epi8(input, joined, 13);
    }
}

__attribute__((target("avx2"))) static inline void check_block(utf8_state *s, __m256i input) {
    if (_mm256_movemask_epi8(input) == 0) {
        // ASCII: only a sequence left open by the block before can be wrong.
        s->error = _mm256_or_si256(s->error, s->incomplete);
        s->previous = input;
        s->incomplete = _mm256_setzero_si256();
        return;
    }
    const __m256i byte_1_high_table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)byte_1_high));
    const __m256i byte_1_low_table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)byte_1_low));
    const __m256i byte_2_high_table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)byte_2_high));
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    __m256i prev1 = before(input, s->previous, 1);
    __m256i high1 = _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble);
    __m256i low1 = _mm256_and_si256(prev1, nibble);
    __m256i high2 = _mm256_and_si256(_mm256_srli_epi16(input, 4), nibble);
    __m256i special = _mm256_and_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(byte_1_high_table, high1), _mm256_shuffle_epi8(byte_1_low_table, low1)),
        _mm256_shuffle_epi8(byte_2_high_table, high2));
    __m256i prev2 = before(input, s->previous, 2);
    __m256i prev3 = before(input, s->previous, 3);
    __m256i third = _mm256_subs_epu8(prev2, _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i fourth = _mm256_subs_epu8(prev3, _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i must23 = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    s->error = _mm256_or_si256(s->error, _mm256_xor_si256(must23, special));
    // A lead byte in the last three places whose sequence goes on past the block.
    const __m256i last = _mm256_loadu_si256((const __m256i *)last_places);
    s->incomplete = _mm256_subs_epu8(input, last);
    s->previous = input;
}

__attribute__((target("avx2"))) static int valid_avx2(const unsigned char *p, size_t n) {
    utf8_state s = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) check_block(&s, _mm256_loadu_si256((const __m256i *)(p + i)));
    if (i < n) {
        unsigned char tail[32] = {0};
        memcpy(tail, p + i, n - i);
        check_block(&s, _mm256_loadu_si256((const __m256i *)tail));
    }
    // A sequence still open at the end is cut short.
    s.error = _mm256_or_si256(s.error, s.incomplete);
    return _mm256_testz_si256(s.error, s.error);
}
#endif

int vs_utf8_valid(const unsigned char *p, size_t n) {
#if defined(__x86_64__)
    if (n >= 16 && vs_has_avx2()) return valid_avx2(p, n);
#endif
    return valid_scalar(p, n);
}
