// What the processor can do, asked once: the byte scans use AVX2 where it is, else SSE2; the
// listing cache's checksum uses SSE 4.2's crc32 where it is.
#ifndef VS_CPU_H
#define VS_CPU_H

#if defined(__x86_64__)
#include <immintrin.h>

// `name()`: whether the processor has `feature` (a literal for `__builtin_cpu_supports`), asked
// once and kept.
#define VS_CPU_FEATURE(name, feature)                                         \
    static inline int name(void) {                                            \
        static int known = -1;                                                \
        int has = __atomic_load_n(&known, __ATOMIC_RELAXED);                  \
        if (has < 0) {                                                        \
            has = __builtin_cpu_supports(feature) ? 1 : 0;                    \
            __atomic_store_n(&known, has, __ATOMIC_RELAXED);                  \
        }                                                                     \
        return has;                                                           \
    }

VS_CPU_FEATURE(vs_has_avx2, "avx2")
VS_CPU_FEATURE(vs_has_sse42, "sse4.2")
#endif

#endif
