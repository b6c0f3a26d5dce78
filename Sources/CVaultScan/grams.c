#include "CVaultScan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The search index's terms (grams.c): every distinct run of three code points of a search key,
// each as a word of six characters [0-9a-v] that FTS5's `ascii` tokenizer takes as it is. Done
// here, on the threads that read the files, so the one thread that writes the index only adds
// words: FTS5's own trigram tokenizer emitted every trigram of a text, repeats included, on
// that thread.

/// The 30-bit term of the code points a, b, c: a multiplicative hash of the three (each at
/// most 21 bits), so that two trigrams rarely share a term (sharing one only adds candidates).
static uint32_t term(uint32_t a, uint32_t b, uint32_t c) {
    uint64_t x = ((uint64_t)a << 42) | ((uint64_t)b << 21) | (uint64_t)c;
    return (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> 34);
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

int vs_trigram_terms(const unsigned char *p, size_t n, vs_terms *out) {
    out->text = NULL;
    out->length = 0;
    out->count = 0;
    // An open-addressing set of the terms seen (term + 1, so 0 is empty), grown at half full.
    size_t capacity = 1024;
    uint32_t *seen = calloc(capacity, sizeof *seen);
    size_t text_capacity = 7 * 256;
    char *text = malloc(text_capacity);
    if (!seen || !text) goto failed;
    size_t i = 0, count = 0, length = 0;
    uint32_t a = 0, b = 0;
    size_t scalars = 0;
    while (i < n) {
        uint32_t c = next_scalar(p, &i, n);
        scalars++;
        if (scalars >= 3) {
            uint32_t t = term(a, b, c);
            size_t mask = capacity - 1;
            size_t slot = (t * 2654435761u) & mask;
            while (seen[slot] != 0 && seen[slot] != t + 1) slot = (slot + 1) & mask;
            if (seen[slot] == 0) {
                seen[slot] = t + 1;
                count++;
                if (length + 7 > text_capacity) {
                    text_capacity *= 2;
                    char *grown = realloc(text, text_capacity);
                    if (!grown) goto failed;
                    text = grown;
                }
                for (int d = 0; d < 6; d++) text[length++] = "0123456789abcdefghijklmnopqrstuv"[(t >> (5 * d)) & 31];
                text[length++] = ' ';
                if (count * 2 > capacity) {
                    size_t grown_capacity = capacity * 2;
                    uint32_t *grown = calloc(grown_capacity, sizeof *grown);
                    if (!grown) goto failed;
                    for (size_t s = 0; s < capacity; s++) {
                        if (seen[s] == 0) continue;
                        size_t at = ((seen[s] - 1) * 2654435761u) & (grown_capacity - 1);
                        while (grown[at] != 0) at = (at + 1) & (grown_capacity - 1);
                        grown[at] = seen[s];
                    }
                    free(seen);
                    seen = grown;
                    capacity = grown_capacity;
                }
            }
        }
        a = b;
        b = c;
    }
    free(seen);
    out->text = text;
    out->length = length;
    out->count = count;
    return 0;
failed:
    free(seen);
    free(text);
    return -1;
}

void vs_terms_free(vs_terms *terms) {
    free(terms->text);
    terms->text = NULL;
}
