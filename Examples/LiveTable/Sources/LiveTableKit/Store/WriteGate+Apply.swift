import Foundation
import OpenCoreData

extension WriteGate {
    /// Applies one message to the writer context (on its queue): the inserted product of an add, or the
    /// error reply, changing nothing, when the message names no row or is not a write.
    func apply(_ message: ClientMessage) -> Result<NSManagedObject?, ErrorReply> {
        switch message {
        case .add(let fields, _):
            let product = NSEntityDescription.insertNewObject(forEntityName: "Products", into: writerContext)
            set(fields, on: product)
            return .success(product)
        case .edit(let id, let fields, let ref):
            guard let product = existing(id, in: writerContext) else { return .failure(missing(id, ref)) }
            set(fields, on: product)
            return .success(nil)
        case .delete(let id, let ref):
            guard let product = existing(id, in: writerContext) else { return .failure(missing(id, ref)) }
            writerContext.delete(product)
            return .success(nil)
        case .begin, .end, .writers, .view:
            return .failure(ErrorReply(message: "not a write: \(message.json())", problem: "type", ref: message.ref))
        }
    }

    func set(_ fields: ClientMessage.Fields, on product: NSManagedObject) {
        if let name = fields.name { product.setValue(name, forKey: "name") }
        if let price = fields.price { product.setValue(NSNumber(value: Int32(price)), forKey: "price") }
        if let category = fields.category { product.setValue(category, forKey: "category") }
    }

    /// The live product a row ID names, or nil (not a URI, another store, another entity, deleted).
    func existing(_ id: String, in context: NSManagedObjectContext) -> NSManagedObject? {
        guard let url = URL(string: id),
              let objectID = store.container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: url),
              objectID.entity.name == "Products" || objectID.entity.superentity?.name == "Products",
              let object = try? context.existingObject(with: objectID), !object.isDeleted else { return nil }
        return object
    }

    func missing(_ id: String, _ ref: Int?) -> ErrorReply {
        ErrorReply(message: "no product has the id \"\(id.prefix(120))\" (deleted, or not a product's id)", problem: "id", ref: ref)
    }
}
