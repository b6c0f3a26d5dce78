// What the processor can do, asked once: the byte scans use AVX2 where it is, else SSE2.
#ifndef VS_CPU_H
#define VS_CPU_H

#if defined(__x86_64__)
#include <immintrin.h>

static inline int vs_has_avx2(void) {
    static int known = -1;
    int avx2 = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (avx2 < 0) {
        avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&known, avx2, __ATOMIC_RELAXED);
    }
    return avx2;
}
#endif

#endif
