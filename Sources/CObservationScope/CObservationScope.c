#if defined(__linux__)
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include "CObservationScope.h"

// The Observation runtime keeps one thread-local word (its `_ThreadLocal.value`: the access list of the
// innermost `withObservationTracking` on the thread, or NULL) at the start of libswiftObservation.so's
// TLS block. The block's module ID is the same in every thread; glibc's __tls_get_addr gives the calling
// thread's instance of it.
ocd_tls_index ocd_observation_tls;
int ocd_observation_trusted;
static int found;
static pthread_once_t lookup = PTHREAD_ONCE_INIT;

static int find_observation_tls(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size; (void)data;
    const char *name = info->dlpi_name;
    const char *suffix = "/libswiftObservation.so";
    size_t length = strlen(name), suffix_length = strlen(suffix);
    if (length < suffix_length || strcmp(name + length - suffix_length, suffix) != 0) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type == PT_TLS && header->p_memsz >= sizeof(void *) && info->dlpi_tls_modid != 0) {
            ocd_observation_tls.module = info->dlpi_tls_modid;
            ocd_observation_tls.offset = 0;
            found = 1;
        }
    }
    return 1;
}

static void look_up(void) { dl_iterate_phdr(find_observation_tls, NULL); }

const void *ocd_observation_scope_word(int *was_found) {
    pthread_once(&lookup, look_up);
    *was_found = found;
    if (!found) return NULL;
    return *(void **)__tls_get_addr(&ocd_observation_tls);
}

void ocd_observation_scope_trust(int trust) {
    int was_found;
    (void)ocd_observation_scope_word(&was_found);
    // Set after `lookup` ran: a reader that sees 1 sees `ocd_observation_tls`.
    __atomic_store_n(&ocd_observation_trusted, trust && was_found, __ATOMIC_RELEASE);
}
#else
#include "CObservationScope.h"
ocd_tls_index ocd_observation_tls;
int ocd_observation_trusted;
const void *ocd_observation_scope_word(int *found) { *found = 0; return 0; }
void ocd_observation_scope_trust(int trusted) { (void)trusted; }
#endif
