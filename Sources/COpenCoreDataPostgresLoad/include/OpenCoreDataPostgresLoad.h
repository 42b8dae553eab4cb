#ifndef OPENCOREDATA_POSTGRES_LOAD_H
#define OPENCOREDATA_POSTGRES_LOAD_H

/// Registers the PostgreSQL store type; defined in Swift (OpenCoreDataPostgres/Registration.swift) and
/// called once when the program is loaded, so that linking the module is all an app does.
void ocd_postgres_register(void);

#endif
