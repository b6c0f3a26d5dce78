#define _GNU_SOURCE
#include "CVaultScan.h"

#include <stdlib.h>
#include <string.h>

#include "cpu.h"


// How common a byte is in the text of a vault (Korean and English prose, Markdown), as a rank:
// higher is more common. A guess from the shape of UTF-8, not measured on any corpus: Hangul
// syllables start with EA-ED (one in three bytes of Korean text), other scripts' lead bytes
// come next, continuation bytes spread over 64 values, and ASCII letters follow their order
// in English text; digits and punctuation are rare.
static int rank(unsigned char b) {
    static const char english[] = "etaoinshrdlcumwfgypbvkjxqz";
    if (b == ' ') return 255;
    if (b >= 0xEA && b <= 0xED) return 250;
    if (b >= 'A' && b <= 'Z') b |= 0x20;
    if (b >= 'a' && b <= 'z') {
        const char *at = strchr(english, b);
        return 240 - (int)(at - english) * 5;
    }
    if (b >= 0xE0 && b <= 0xEF) return 200;
    if (b >= 0x80 && b <= 0xBF) return 150;
    if (b == '.' || b == ',' || b == '\n') return 130;
    if (b >= '0' && b <= '9') return 90;
    return 60;
}

vs_finder *vs_finder_make(const unsigned char *needle, size_t m, int ignore_ascii_case) {
    vs_finder *f = malloc(sizeof *f + m);
    if (!f) return NULL;
    unsigned char *copy = (unsigned char *)(f + 1);
    if (m) memcpy(copy, needle, m);
    f->needle = copy;
    f->m = m;
    f->fold = ignore_ascii_case;
    f->i1 = f->i2 = 0;
    // The rarest position, then the rarest other one (of another byte when there is one).
    for (size_t k = 1; k < m; k++) {
        if (rank(needle[k]) < rank(needle[f->i1])) f->i1 = k;
    }
    int best = 1 << 20;
    for (size_t k = 0; k < m; k++) {
        if (k == f->i1) continue;
        int r = rank(needle[k]) + (needle[k] == needle[f->i1] ? 512 : 0);
        if (r < best) {
            best = r;
            f->i2 = k;
        }
    }
    if (m < 2) f->i2 = f->i1;
    return f;
}

void vs_finder_free(vs_finder *f) { free(f); }

static inline unsigned char upper(unsigned char b) { return b >= 'a' && b <= 'z' ? b - 32 : b; }

static inline int same(const vs_finder *f, const unsigned char *p) {
    if (!f->fold) return memcmp(p, f->needle, f->m) == 0;
    for (size_t k = 0; k < f->m; k++) {
        unsigned char b = p[k];
        if ((b >= 'A' && b <= 'Z' ? b | 0x20 : b) != f->needle[k]) return 0;
    }
    return 1;
}

static size_t find_scalar(const vs_finder *f, const unsigned char *p, size_t i, size_t n) {
    const unsigned char a = f->needle[f->i1], b = f->needle[f->i2];
    const unsigned char A = f->fold ? upper(a) : a, B = f->fold ? upper(b) : b;
    for (; i + f->m <= n; i++) {
        unsigned char x = p[i + f->i1], y = p[i + f->i2];
        if ((x == a || x == A) && (y == b || y == B) && same(f, p + i)) return i;
    }
    return n;
}

#if defined(__x86_64__)
static size_t find_sse2(const vs_finder *f, const unsigned char *p, size_t i, size_t n) {
    const size_t far = f->i1 > f->i2 ? f->i1 : f->i2;
    const unsigned char a = f->needle[f->i1], b = f->needle[f->i2];
    const __m128i a1 = _mm_set1_epi8((char)a), a2 = _mm_set1_epi8((char)(f->fold ? upper(a) : a));
    const __m128i b1 = _mm_set1_epi8((char)b), b2 = _mm_set1_epi8((char)(f->fold ? upper(b) : b));
    while (i + far + 16 <= n) {
        __m128i x = _mm_loadu_si128((const __m128i *)(p + i + f->i1));
        __m128i y = _mm_loadu_si128((const __m128i *)(p + i + f->i2));
        __m128i hx = _mm_or_si128(_mm_cmpeq_epi8(x, a1), _mm_cmpeq_epi8(x, a2));
        __m128i hy = _mm_or_si128(_mm_cmpeq_epi8(y, b1), _mm_cmpeq_epi8(y, b2));
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(hx, hy));
        while (mask) {
            size_t at = i + (size_t)__builtin_ctz(mask);
            if (at + f->m <= n && same(f, p + at)) return at;
            mask &= mask - 1;
        }
        i += 16;
    }
    return find_scalar(f, p, i, n);
}

__attribute__((target("avx2"))) static size_t find_avx2(const vs_finder *f, const unsigned char *p, size_t i,
                                                        size_t n) {
    const size_t far = f->i1 > f->i2 ? f->i1 : f->i2;
    const unsigned char a = f->needle[f->i1], b = f->needle[f->i2];
    const __m256i a1 = _mm256_set1_epi8((char)a), a2 = _mm256_set1_epi8((char)(f->fold ? upper(a) : a));
    const __m256i b1 = _mm256_set1_epi8((char)b), b2 = _mm256_set1_epi8((char)(f->fold ? upper(b) : b));
    while (i + far + 32 <= n) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(p + i + f->i1));
        __m256i y = _mm256_loadu_si256((const __m256i *)(p + i + f->i2));
        __m256i hx = _mm256_or_si256(_mm256_cmpeq_epi8(x, a1), _mm256_cmpeq_epi8(x, a2));
        __m256i hy = _mm256_or_si256(_mm256_cmpeq_epi8(y, b1), _mm256_cmpeq_epi8(y, b2));
        unsigned mask = (unsigned)_mm256_movemask_epi8(_mm256_and_si256(hx, hy));
        while (mask) {
            size_t at = i + (size_t)__builtin_ctz(mask);
            if (at + f->m <= n && same(f, p + at)) return at;
            mask &= mask - 1;
        }
        i += 32;
    }
    return find_sse2(f, p, i, n);
}
#endif

size_t vs_find(const vs_finder *f, const unsigned char *p, size_t i, size_t n) {
    if (f->m == 0 || i > n || n - i < f->m) return n;
#if defined(__x86_64__)
    return vs_has_avx2() ? find_avx2(f, p, i, n) : find_sse2(f, p, i, n);
#else
    return find_scalar(f, p, i, n);
#endif
}

static size_t count_scalar(const unsigned char *p, size_t n, unsigned char byte) {
    size_t count = 0;
    for (size_t i = 0; i < n; i++) count += p[i] == byte;
    return count;
}

#if defined(__x86_64__)
__attribute__((target("avx2,popcnt"))) static size_t count_avx2(const unsigned char *p, size_t n, unsigned char byte) {
    const __m256i b = _mm256_set1_epi8((char)byte);
    size_t count = 0, i = 0;
    for (; i + 64 <= n; i += 64) {
        unsigned x = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + i)), b));
        unsigned y =
            (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + i + 32)), b));
        count += (size_t)__builtin_popcount(x) + (size_t)__builtin_popcount(y);
    }
    return count + count_scalar(p + i, n - i, byte);
}

static size_t count_sse2(const unsigned char *p, size_t n, unsigned char byte) {
    const __m128i b = _mm_set1_epi8((char)byte);
    size_t count = 0, i = 0;
    for (; i + 16 <= n; i += 16) {
        unsigned x = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), b));
        while (x) {
            count++;
            x &= x - 1;
        }
    }
    return count + count_scalar(p + i, n - i, byte);
}
#endif

size_t vs_count_byte(const unsigned char *p, size_t n, unsigned char byte) {
#if defined(__x86_64__)
    return vs_has_avx2() ? count_avx2(p, n, byte) : count_sse2(p, n, byte);
#else
    return count_scalar(p, n, byte);
#endif
}

// The first byte from `i` that a listing cannot print as it is: a control byte (below 0x20,
// 0x7F), a backslash (an escape in the listing cache), or 0xC2 (which leads U+0080–U+009F).
static inline int unplain(unsigned char c) { return c < 0x20 || c == 0x5C || c == 0x7F || c == 0xC2; }

static size_t unplain_scalar(const unsigned char *p, size_t i, size_t n) {
    while (i < n && !unplain(p[i])) i++;
    return i;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static size_t unplain_avx2(const unsigned char *p, size_t i, size_t n) {
    const __m256i controls = _mm256_set1_epi8(0x1F), backslash = _mm256_set1_epi8(0x5C);
    const __m256i del = _mm256_set1_epi8(0x7F), c1 = _mm256_set1_epi8((char)0xC2);
    for (; i + 32 <= n; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i hit = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(_mm256_max_epu8(x, controls), controls), _mm256_cmpeq_epi8(x, backslash)),
            _mm256_or_si256(_mm256_cmpeq_epi8(x, del), _mm256_cmpeq_epi8(x, c1)));
        unsigned m = (unsigned)_mm256_movemask_epi8(hit);
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    return unplain_scalar(p, i, n);
}

static size_t unplain_sse2(const unsigned char *p, size_t i, size_t n) {
    const __m128i controls = _mm_set1_epi8(0x1F), backslash = _mm_set1_epi8(0x5C);
    const __m128i del = _mm_set1_epi8(0x7F), c1 = _mm_set1_epi8((char)0xC2);
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i hit = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(_mm_max_epu8(x, controls), controls), _mm_cmpeq_epi8(x, backslash)),
            _mm_or_si128(_mm_cmpeq_epi8(x, del), _mm_cmpeq_epi8(x, c1)));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    return unplain_scalar(p, i, n);
}
#endif

size_t vs_next_unplain(const unsigned char *p, size_t i, size_t n) {
#if defined(__x86_64__)
    return vs_has_avx2() ? unplain_avx2(p, i, n) : unplain_sse2(p, i, n);
#else
    return unplain_scalar(p, i, n);
#endif
}
