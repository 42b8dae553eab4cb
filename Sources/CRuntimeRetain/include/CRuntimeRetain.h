#ifndef OCD_RUNTIME_RETAIN_H
#define OCD_RUNTIME_RETAIN_H

// Three C functions the Swift runtime exports, which Swift has no public way to call. OpenCoreData's link from a
// managed object to its OpenSwiftData model (Objects/SwiftDataModelLink.swift) holds the model by its unowned
// reference count, which keeps the model's memory but not its life, and loads it only if it is still alive.

/// Retains `object`, a Swift class instance, and returns it, unless it is being deinitialized or was (then NULL):
/// what loading a weak reference does. The caller must keep the memory alive (here, by an unowned count).
void *_Nullable swift_tryRetain(void *_Nonnull object);

/// Adds one to `object`'s unowned reference count: its memory stays after its deinitialization, until released.
void swift_unownedRetain(void *_Nullable object);

/// Takes one from `object`'s unowned reference count, freeing its memory if it was deinitialized and this was the last.
void swift_unownedRelease(void *_Nullable object);

#endif
