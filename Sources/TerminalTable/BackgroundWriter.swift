import Foundation
import OpenCoreData
import DemoModels

/// Seed 002's background case: a private-queue context on the view context's coordinator that saves one
/// random change of the model every `interval`; the view context merges each save and its fetched
/// results controller sends the table one batch per save.
///
/// Mirrors nothing in Core Data: it plays the app's background import.
public final class BackgroundWriter<Model: LiveTableModel>: @unchecked Sendable {
    private let context: NSManagedObjectContext
    private let model: Model
    private let interval: TimeInterval
    private let queue = DispatchQueue(label: "BackgroundWriter")
    private var timer: DispatchSourceTimer?
    // Touched only on the context's queue.
    private var random: SeededRandom
    private let report: @MainActor @Sendable (String) -> Void
    private var saves = 0

    /// A writer on a new background context of `container`; `report` gets each save's description on
    /// the main queue.
    public init(container: NSPersistentContainer, model: Model, interval: TimeInterval, seed: UInt64,
                report: @escaping @MainActor @Sendable (String) -> Void) {
        context = container.newBackgroundContext()
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        self.model = model
        self.interval = interval
        self.random = SeededRandom(seed: seed)
        self.report = report
    }

    /// Whether the writer is running.
    public var isRunning: Bool { timer != nil }

    /// Starts writing (call on the main queue).
    public func start() {
        guard timer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [self] in context.performAndWait { writeOne() } }
        timer.resume()
        self.timer = timer
    }

    /// Stops writing; a save under way finishes (call on the main queue).
    public func stop() {
        timer?.cancel()
        timer = nil
    }

    private func writeOne() {
        let text: String
        do {
            text = try model.randomChange(in: context, using: &random)
            try context.save()
            saves += 1
        } catch {
            context.rollback()
            let message = "background save failed: \(error)"
            DispatchQueue.main.async { [report] in MainActor.assumeIsolated { report(message) } }
            return
        }
        let message = "save \(saves): \(text)"
        DispatchQueue.main.async { [report] in MainActor.assumeIsolated { report(message) } }
    }
}
