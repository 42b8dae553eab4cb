#ifndef OCD_MANAGED_SECTION_H
#define OCD_MANAGED_SECTION_H

/// The bounds of the `ocd_managed` linker section of the image this library is linked into: one record
/// (a C function pointer) per `@Managed` property and `@ManagedAccessor` function, placed there by the
/// macro's expansion (`@section`, `@used`). Both are NULL when the image has no record.
const void *_Nullable ocd_managed_section_start(void);
const void *_Nullable ocd_managed_section_end(void);

#endif
