#ifndef OCD_RUNTIME_RETAIN_H
#define OCD_RUNTIME_RETAIN_H

/// The Swift runtime's `swift_tryRetain` (a C function the Swift runtime exports): retains `object`, a Swift class
/// instance, and returns it, unless it is being deinitialized (then NULL), which is what loading a weak reference does.
/// Swift has no public way to call it; OpenCoreData's link from a managed object to its OpenSwiftData model, held
/// without a reference count, loads the model through it (Objects/SwiftDataModelLink.swift).
void *_Nullable swift_tryRetain(void *_Nonnull object);

#endif
