#include "OpenCoreDataPostgresLoad.h"

// Runs when the program (or test bundle) that links OpenCoreDataPostgres is loaded, before main.
__attribute__((constructor)) static void ocd_postgres_load(void) {
    ocd_postgres_register();
}
