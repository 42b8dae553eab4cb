import Foundation
import Testing
@testable import OpenCoreData

/// A policy that makes `fullName` and records each stage hook the manager calls, with the mapping the
/// manager says it is working on.
final class HookRecordingPolicy: NSEntityMigrationPolicy {
    nonisolated(unsafe) static var calls: [String] = []

    private func note(_ hook: String, _ manager: NSMigrationManager) {
        Self.calls.append("\(hook) \(manager.currentEntityMapping.name ?? "?")")
    }
    override func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {
        note("begin", manager)
    }
    override func perform(function selector: String, arguments: [Any?], manager: NSMigrationManager) throws -> Any? {
        [arguments[0] as? String, arguments[1] as? String].compactMap { $0 }.joined(separator: " ")
    }
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        note("create", manager)
    }
    override func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        note("endInstanceCreation", manager)
    }
    override func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createRelationships(forDestination: dInstance, in: mapping, manager: manager)
        note("relate", manager)
    }
    override func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        note("endRelationshipCreation", manager)
    }
    override func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        note("validate", manager)
        let people = manager.destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: nil)
        if people.contains(where: { ($0.value(forKey: "fullName") as? String)?.isEmpty != false }) {
            throw CoreDataError(NSValidationMissingMandatoryPropertyError, "a person without a name")
        }
    }
    override func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        note("end", manager)
    }
}

/// The stages of `NSEntityMigrationPolicy` in order, and what the manager tells a policy during them.
@Suite(.serialized) struct MigrationPolicyHookTests {
    @Test func everyStageHookRunsOnceInOrderForItsMapping() throws {
        let run = try MigrationManagerTests.Run()
        defer { run.directory.cleanUp() }
        HookRecordingPolicy.calls = []
        let mapping = try MigrationManagerTests.mapping(policy: NSStringFromClass(HookRecordingPolicy.self))
        try run.manager.migrateStore(from: run.source, type: .sqlite, mapping: mapping, to: run.destination, type: .sqlite)
        let m = "PersonToPerson"
        #expect(HookRecordingPolicy.calls == ["begin \(m)"] + Array(repeating: "create \(m)", count: 3) + ["endInstanceCreation \(m)"]
                + Array(repeating: "relate \(m)", count: 3) + ["endRelationshipCreation \(m)", "validate \(m)", "end \(m)"])
        let personMapping = try #require(run.manager.mappingModel.entityMappingsByName[m])
        #expect(run.manager.destinationEntity(for: personMapping)?.name == "Person")
        #expect(run.manager.destinationEntity(for: personMapping) === run.v2.entitiesByName["Person"])
    }
}
