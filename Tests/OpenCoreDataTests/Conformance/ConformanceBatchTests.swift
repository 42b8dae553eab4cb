import Foundation
import OpenCoreData
import Testing

/// Batch insert, update and delete, written by the store without a context; upserts under a uniqueness
/// constraint. A store without batch requests refuses them with `NSPersistentStoreUnsupportedRequestTypeError`.
@Suite("Conformance: batch requests")
struct ConformanceBatchTests {
    @Test(arguments: StoreUnderTest.with(.batchRequests))
    func insertUpdateAndDelete(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        try context.performAndWait { () throws in
            let insert = NSBatchInsertRequest(entityName: "Book", objects: (1...5).map { ["title": "Book \($0)", "pages": $0 * 10] })
            insert.resultType = .count
            #expect((try context.execute(insert) as? NSBatchInsertResult)?.result as? NSNumber == 5)
            let update = NSBatchUpdateRequest(entityName: "Book")
            update.predicate = NSPredicate(format: "pages > 30")
            update.propertiesToUpdate = ["title": "long"]
            update.resultType = .updatedObjectIDsResultType
            let updated = (try context.execute(update) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID]
            #expect(updated?.count == 2)
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Book"))
            delete.fetchRequest.predicate = NSPredicate(format: "pages < 20")
            delete.resultType = .resultTypeCount
            #expect((try context.execute(delete) as? NSBatchDeleteResult)?.result as? NSNumber == 1)
            #expect(try ConformanceModel.values("Book", "title", in: context) == ["Book 2", "Book 3", "long", "long"])
        }
    }

    @Test(arguments: StoreUnderTest.with(.batchRequests).filter { $0.has(.uniquenessConstraints) })
    func aBatchInsertUpsertsUnderAConstraint(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        try context.performAndWait { () throws in
            ConformanceModel.tag("a", "old", in: context)
            try context.save()
            let insert = NSBatchInsertRequest(entityName: "Tag", objects: [["code": "a", "label": "new"], ["code": "b", "label": "B"]])
            _ = try context.execute(insert)
            context.reset()
            #expect(try ConformanceModel.values("Tag", "label", in: context) == ["B", "new"])
        }
    }

    @Test(arguments: StoreUnderTest.without(.batchRequests))
    func batchRequestsAreRefused(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        try ConformanceModel.seedAuthors(context)
        let update = NSBatchUpdateRequest(entityName: "Book")
        update.propertiesToUpdate = ["title": "x"]
        let requests: [NSPersistentStoreRequest] = [
            NSBatchInsertRequest(entityName: "Book", objects: [["title": "x"]]), update,
            NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Book")),
        ]
        try context.performAndWait { () throws in
            for request in requests {
                let error = #expect(throws: CoreDataError.self) { try context.execute(request) }
                #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError, "\(request.requestType)")
            }
            #expect(try ConformanceModel.values("Book", "title", in: context) == ["Compiler", "Engine", "Notes", "Sketch"])
        }
    }
}
