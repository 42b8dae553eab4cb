#ifndef OCD_OBSERVATION_SCOPE_H
#define OCD_OBSERVATION_SCOPE_H

/// Whether the calling thread is inside a `withObservationTracking` closure: 1 when the Observation
/// runtime's thread-local access list is set, 0 when it is not, -1 when this cannot be told (the
/// thread-local was not found, or the answer is not trusted yet or at all: see
/// `ocd_observation_scope_trust`). Observation has no public way to ask; the managed objects' observation
/// (OpenCoreData's ModernSwift/Observation) checks this probe against `withObservationTracking` once
/// before trusting it, and treats -1 as "perhaps".
static inline int ocd_observation_scope_state(void);

/// The Observation runtime's thread-local word in the calling thread, with `*found` 1 when it was found
/// (0, and NULL returned, when it was not): what the check before trusting compares.
const void *_Nullable ocd_observation_scope_word(int *_Nonnull found);

/// Records the check's verdict: 1, `ocd_observation_scope_state` answers from the word; 0, it answers -1.
void ocd_observation_scope_trust(int trusted);


// What the inline function below reads (defined in CObservationScope.c): the Observation runtime's TLS
// block (module ID, offset 0), and whether it is trusted.
typedef struct { unsigned long module; unsigned long offset; } ocd_tls_index;
extern ocd_tls_index ocd_observation_tls;
extern int ocd_observation_trusted;
#if defined(__linux__)
extern void *_Nullable __tls_get_addr(ocd_tls_index *_Nonnull index);
#endif

static inline int ocd_observation_scope_state(void) {
#if defined(__linux__)
    if (__atomic_load_n(&ocd_observation_trusted, __ATOMIC_ACQUIRE) != 1) return -1;
    return *(void **)__tls_get_addr(&ocd_observation_tls) ? 1 : 0;
#else
    return -1;
#endif
}

#endif
