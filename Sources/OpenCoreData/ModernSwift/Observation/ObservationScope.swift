import CObservationScope
import Logging
import Observation

/// Whether a `withObservationTracking` closure may be running on the calling thread: what a managed
/// object's getter asks before it tells Observation of the read (NSManagedObject+Observation.swift), so
/// that a read nobody tracks costs one call and no allocation.
///
/// Observation has no public way to ask. The probe (the C target `CObservationScope`) reads the runtime's
/// own thread-local, the one `withObservationTracking` sets while its closure runs; before its answers are
/// used it is checked once against `withObservationTracking` itself (the word must change inside the
/// closure and come back after it). A runtime where that check fails (a statically linked one, another
/// layout, another platform) gets "perhaps" for every read: observation stays exact, and each object read
/// pays for its registrar (docs/ModernSwift.md).
@usableFromInline enum ObservationScope {
    /// Whether the calling thread may be inside a `withObservationTracking` closure.
    @inlinable @inline(__always) static var mayBeTracking: Bool {
        switch ocd_observation_scope_state() {
        case 0: return false
        case 1: return true
        default: return undecided()
        }
    }

    /// The probe has no answer: it is checked now if it never was, then asked again.
    @usableFromInline @inline(never) static func undecided() -> Bool {
        _ = probeIsTrusted
        return ocd_observation_scope_state() != 0
    }

    /// The check's verdict, made once per process.
    static let probeIsTrusted: Bool = {
        let trusted = probeFollowsTracking()
        ocd_observation_scope_trust(trusted ? 1 : 0)
        if !trusted {
            Logger(label: "OpenCoreData.Observation").notice("withObservationTracking scopes cannot be told apart here: every read of a managed object property counts as observed (each object read gets a registrar)")
        }
        return trusted
    }()

    /// Whether the probe's word is set inside a `withObservationTracking` closure, to another value than
    /// outside it, and back afterwards (also when this runs inside someone else's tracking).
    private static func probeFollowsTracking() -> Bool {
        var found: Int32 = 0
        let before = ocd_observation_scope_word(&found)
        guard found == 1 else { return false }
        nonisolated(unsafe) var inside: UnsafeRawPointer?
        withObservationTracking {
            var found: Int32 = 0
            inside = ocd_observation_scope_word(&found)
        } onChange: {}
        let after = ocd_observation_scope_word(&found)
        return inside != nil && inside != before && after == before
    }

    /// For tests: as if the check had failed (`false`), or back to its verdict (`true`).
    static func useProbe(_ use: Bool) {
        ocd_observation_scope_trust(use && probeIsTrusted ? 1 : 0)
    }
}

extension _ManagedMacroSupport {
    /// Whether a `withObservationTracking` closure may be running on the calling thread (``ObservationScope``'s
    /// answer): OpenSwiftData's `@Model` getters tell their registrar of a read only then (outside such a
    /// closure `ObservationRegistrar.access` records nothing).
    /// Inlined into the getters: the probe's answer is a load and a thread-local lookup, not a call.
    @inlinable public static var observationMayBeTracking: Bool { ObservationScope.mayBeTracking }
}
