#include "CManagedSection.h"

#if defined(__APPLE__)
// ld64 makes these for any section referenced this way.
extern const char ocd_section_start[] __asm("section$start$__DATA$ocd_managed");
extern const char ocd_section_end[] __asm("section$end$__DATA$ocd_managed");
const void *ocd_managed_section_start(void) { return ocd_section_start; }
const void *ocd_managed_section_end(void) { return ocd_section_end; }
#else
// ELF linkers (GNU ld, gold, lld) define __start_NAME / __stop_NAME for a section whose name is a C
// identifier; weak, so that an image without any record still links (both are then NULL).
extern const char __start_ocd_managed[] __attribute__((weak, visibility("hidden")));
extern const char __stop_ocd_managed[] __attribute__((weak, visibility("hidden")));
const void *ocd_managed_section_start(void) { return __start_ocd_managed; }
const void *ocd_managed_section_end(void) { return __stop_ocd_managed; }
#endif
