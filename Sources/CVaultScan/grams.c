#include "CVaultScan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The search index's terms (grams.c): every distinct run of three code points of a search key,
// each as a word of six characters [0-9a-v] that FTS5's `ascii` tokenizer takes as it is; and,
// for CJK text (Hangul, kana, Han), every distinct CJK code point and every distinct pair of two
// CJK code points side by side, so a one- or two-character Korean, Japanese or Chinese query
// (`꿈`, `야경`, `東京`) is looked up too. Done here, on the threads that read the files, so the
// one thread that writes the index only adds words: FTS5's own trigram tokenizer emitted every
// trigram of a text, repeats included, on that thread.
//
// The four kinds of words never meet: a trigram is six letters [0-9a-v], a pair `w` and six,
// a single code point `x` and five (its value, not a hash: no two share one), and a trigram
// as written, before case folding, that holds a capital A–Z `y` and six (`vs_case_terms`: a
// search that keeps case, `Swift`, reads only the files that have it with that capital).

/// The 30-bit term of the code points a, b, c: a multiplicative hash of the three (each at
/// most 21 bits), so that two trigrams rarely share a term (sharing one only adds candidates).
static uint32_t term(uint32_t a, uint32_t b, uint32_t c) {
    uint64_t x = ((uint64_t)a << 42) | ((uint64_t)b << 21) | (uint64_t)c;
    return (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> 34);
}

/// Whether c is a CJK letter: Hangul (syllables, jamo, compatibility jamo), kana or Han. Korean
/// words are mostly one or two syllables, Chinese and Japanese ones one or two characters, so
/// these get the shorter terms; a word of Latin letters that short is in nearly every file.
static int is_cjk(uint32_t c) {
    return (c >= 0xAC00 && c <= 0xD7A3)      // Hangul syllables
        || (c >= 0x1100 && c <= 0x11FF)      // Hangul jamo
        || (c >= 0x3130 && c <= 0x318F)      // Hangul compatibility jamo
        || (c >= 0xA960 && c <= 0xA97F) || (c >= 0xD7B0 && c <= 0xD7FF)  // jamo extended
        || (c >= 0x3040 && c <= 0x30FF)      // hiragana, katakana
        || (c >= 0x31F0 && c <= 0x31FF)      // katakana phonetic extensions
        || (c >= 0xFF66 && c <= 0xFF9F)      // halfwidth katakana
        || (c >= 0x3400 && c <= 0x4DBF)      // Han extension A
        || (c >= 0x4E00 && c <= 0x9FFF)      // Han
        || (c >= 0xF900 && c <= 0xFAFF)      // Han compatibility
        || (c >= 0x20000 && c <= 0x3134F);   // Han extensions B–G
}

/// The next code point of the UTF-8 at p[*i..<n], and *i moved past it. The text is valid
/// UTF-8 (a Swift `String`); a truncated sequence at the end is read as far as it goes.
static uint32_t next_scalar(const unsigned char *p, size_t *i, size_t n) {
    uint32_t c = p[*i];
    size_t length = 1;
    if (c >= 0xF0) { c &= 0x07; length = 4; }
    else if (c >= 0xE0) { c &= 0x0F; length = 3; }
    else if (c >= 0xC0) { c &= 0x1F; length = 2; }
    size_t k = 1;
    for (; k < length && *i + k < n; k++) c = (c << 6) | (p[*i + k] & 0x3F);
    *i += k;
    return c;
}

enum { TRIGRAM = 0, PAIR = 1, SINGLE = 2, CASED = 3 };

/// The words made so far and the set of those already made.
typedef struct {
    // An open-addressing set of the terms seen (kind << 30 | value, + 1 so 0 is empty), grown
    // at half full.
    uint64_t *seen;
    size_t capacity;
    char *text;
    size_t text_capacity;
    size_t length;
    size_t count;
} words;

static const char digits[] = "0123456789abcdefghijklmnopqrstuv";

/// Adds the word of `value` (30 bits) of `kind` unless it is in already; -1 when memory ran out.
static int add(words *w, int kind, uint32_t value) {
    uint64_t key = ((uint64_t)kind << 30 | value) + 1;
    size_t mask = w->capacity - 1;
    size_t slot = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (w->seen[slot] != 0 && w->seen[slot] != key) slot = (slot + 1) & mask;
    if (w->seen[slot] != 0) return 0;
    w->seen[slot] = key;
    w->count++;
    if (w->length + 8 > w->text_capacity) {
        size_t grown_capacity = w->text_capacity * 2;
        char *grown = realloc(w->text, grown_capacity);
        if (!grown) return -1;
        w->text = grown;
        w->text_capacity = grown_capacity;
    }
    int letters = 6;
    if (kind == PAIR) w->text[w->length++] = 'w';
    if (kind == SINGLE) { w->text[w->length++] = 'x'; letters = 5; }
    if (kind == CASED) w->text[w->length++] = 'y';
    for (int d = 0; d < letters; d++) w->text[w->length++] = digits[(value >> (5 * d)) & 31];
    w->text[w->length++] = ' ';
    if (w->count * 2 > w->capacity) {
        size_t grown_capacity = w->capacity * 2;
        uint64_t *grown = calloc(grown_capacity, sizeof *grown);
        if (!grown) return -1;
        for (size_t s = 0; s < w->capacity; s++) {
            if (w->seen[s] == 0) continue;
            size_t at = (size_t)((w->seen[s] * 0x9E3779B97F4A7C15ull) >> 32) & (grown_capacity - 1);
            while (grown[at] != 0) at = (at + 1) & (grown_capacity - 1);
            grown[at] = w->seen[s];
        }
        free(w->seen);
        w->seen = grown;
        w->capacity = grown_capacity;
    }
    return 0;
}

/// Empty words with room for `terms` before growing; 0, or -1 when memory ran out.
static int words_start(words *w, size_t terms) {
    *w = (words){ calloc(terms * 4, sizeof(uint64_t)), terms * 4, malloc(8 * terms), 8 * terms, 0, 0 };
    return w->seen && w->text ? 0 : -1;
}

/// Hands the words over to `out` when `status` is 0 (else frees them); returns `status`.
static int words_finish(words *w, int status, vs_terms *out) {
    free(w->seen);
    if (status != 0) {
        free(w->text);
        *out = (vs_terms){ NULL, 0, 0 };
        return status;
    }
    *out = (vs_terms){ w->text, w->length, w->count };
    return 0;
}

int vs_index_terms(const unsigned char *p, size_t n, int of_query, vs_terms *out) {
    words w;
    if (words_start(&w, 256) != 0) goto failed;
    // A query of three code points or more is looked up by its trigrams alone (they narrow
    // more); a shorter one by its pair when both are CJK, else by its CJK code points.
    size_t total = 0;
    if (of_query) {
        for (size_t i = 0; i < n && total < 3; total++) next_scalar(p, &i, n);
    }
    int short_query = of_query && total < 3;
    size_t i = 0, scalars = 0;
    uint32_t a = 0, b = 0;
    while (i < n) {
        uint32_t c = next_scalar(p, &i, n);
        scalars++;
        int cjk = is_cjk(c);
        if (!short_query) {
            if (scalars >= 3 && add(&w, TRIGRAM, term(a, b, c)) != 0) goto failed;
        }
        if (!of_query || short_query) {
            int pair = scalars >= 2 && cjk && is_cjk(b);
            if (pair && add(&w, PAIR, term(0, b, c)) != 0) goto failed;
            // A short query's pair is enough; its single code points are looked up only when it
            // has no pair.
            if (cjk && !(short_query && total == 2) && add(&w, SINGLE, c) != 0) goto failed;
        }
        a = b;
        b = c;
    }
    if (short_query && total == 2 && w.count == 0) {
        // Two code points that are not both CJK: the CJK one's own term, if any.
        i = 0;
        while (i < n) {
            uint32_t c = next_scalar(p, &i, n);
            if (is_cjk(c) && add(&w, SINGLE, c) != 0) goto failed;
        }
    }
    return words_finish(&w, 0, out);
failed:
    return words_finish(&w, -1, out);
}

static int is_capital(uint32_t c) { return c >= 'A' && c <= 'Z'; }

int vs_case_terms(const unsigned char *p, size_t n, vs_terms *out) {
    words w;
    if (words_start(&w, 64) != 0) goto failed;
    size_t i = 0, scalars = 0;
    uint32_t a = 0, b = 0;
    while (i < n) {
        uint32_t c = next_scalar(p, &i, n);
        scalars++;
        int capital = is_capital(a) || is_capital(b) || is_capital(c);
        if (scalars >= 3 && capital && add(&w, CASED, term(a, b, c)) != 0) goto failed;
        a = b;
        b = c;
    }
    return words_finish(&w, 0, out);
failed:
    return words_finish(&w, -1, out);
}

void vs_terms_free(vs_terms *terms) {
    free(terms->text);
    terms->text = NULL;
}
