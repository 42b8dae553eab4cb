import CManagedSection
import Foundation
import Synchronization

/// What a `@Managed` property's declared type asks of the entity's property.
enum ManagedPropertyShape {
    /// An attribute whose type the table of supported types (`ManagedAttributeTypes`) says `declared` fits.
    case attribute(declared: Any.Type)
    /// A custom type: a transformable (or undefined) attribute.
    case transformable
    /// `[String: Any]`: a composite attribute (Xcode's type for one), or a transformable one.
    case dictionary
    /// A to-one whose destination's class is `destination` or a subclass of it.
    case toOne(destination: NSManagedObject.Type)
    /// A to-many (`ordered`: `NSOrderedSet`; `nil`: either) whose destination's class is `destination`
    /// or a subclass of it.
    case toMany(destination: NSManagedObject.Type, ordered: Bool?)

    /// The shape of a property declared `declared`, and the declaration as messages show it
    /// (`legs: Int16`, `classification: Classification?`, `zoos: Set<Zoo>`). It tells the kinds of type
    /// apart as the overloads of the property's getter do (NSManagedObject+Managed.swift).
    static func of(_ declared: Any.Type, name: String) -> (shape: ManagedPropertyShape, declaration: String) {
        if declared is any _ManagedMacroSupport.AttributeValue.Type {
            return (.attribute(declared: declared), "\(name): \(declared)")
        }
        let wrapped = ManagedTransform.unwrappedType(declared)
        let mark = wrapped == declared ? "" : "?"
        if wrapped == [String: Any].self { return (.dictionary, "\(name): [String: Any]\(mark)") }
        if wrapped == NSSet.self || wrapped == NSOrderedSet.self {
            return (.toMany(destination: NSManagedObject.self, ordered: wrapped == NSOrderedSet.self), "\(name): \(wrapped)\(mark)")
        }
        if let destination = wrapped as? NSManagedObject.Type {
            return (.toOne(destination: destination), "\(name): \(destination)\(mark)")
        }
        if let set = wrapped as? any ManagedObjectSet.Type {
            return (.toMany(destination: set.element, ordered: false), "\(name): Set<\(set.element)>\(mark)")
        }
        return (.transformable, "\(name): \(declared)")
    }
}

/// A Swift set of managed objects (`Set<Zoo>`), the type of a to-many property.
private protocol ManagedObjectSet { static var element: NSManagedObject.Type { get } }
extension Set: ManagedObjectSet where Element: NSManagedObject {
    fileprivate static var element: NSManagedObject.Type { Element.self }
}

/// One `@Managed` property or `@ManagedAccessor` function of a class, as its section record reports it.
struct ManagedMember {
    let owner: NSManagedObject.Type
    /// The property's name, or the relationship an accessor names as the function spells it (`Zoos`).
    let name: String
    /// `age: Int16`, `addToZoos(_:)`: for messages.
    let declaration: String
    let shape: ManagedPropertyShape
    /// `\Owner.name` and `\Owner?.?.name` (a `@Managed` property's; `nil` for an accessor).
    var keyPaths: (plain: AnyKeyPath, optional: AnyKeyPath)? = nil
}

/// Collects the records of the `ocd_managed` section while it is read (once per process).
final class ManagedRecordCollector {
    var members: [ManagedMember] = []
    var keyValues: [KeyValueProperty] = []

    static func add(_ collector: UnsafeMutableRawPointer, _ member: ManagedMember) {
        Unmanaged<ManagedRecordCollector>.fromOpaque(collector).takeUnretainedValue().members.append(member)
    }

    static func add(_ collector: UnsafeMutableRawPointer, _ property: KeyValueProperty) {
        Unmanaged<ManagedRecordCollector>.fromOpaque(collector).takeUnretainedValue().keyValues.append(property)
    }
}

extension _ManagedMacroSupport {
    /// What a `@Managed` property's section record calls: reports the property (its class, its declared
    /// type, its slot cache) to `collector`. Core Data learns a class's `@NSManaged` properties from the
    /// Objective-C runtime instead.
    public static func record<T>(_ collector: UnsafeMutableRawPointer, _ owner: NSManagedObject.Type,
                                 _ type: T.Type, _ property: Property, _ keyPath: AnyKeyPath, _ optionalKeyPath: AnyKeyPath) {
        let (shape, declaration) = ManagedPropertyShape.of(T.self, name: property.name)
        ManagedRecordCollector.add(collector, ManagedMember(owner: owner, name: property.name, declaration: declaration, shape: shape,
                                                            keyPaths: (keyPath, optionalKeyPath)))
    }

    /// What a `@ManagedAccessor` function's section record calls: reports the function, which names the
    /// to-many `relationship` (as the function spells it), to `collector`.
    public static func accessorRecord(_ collector: UnsafeMutableRawPointer, _ owner: NSManagedObject.Type, _ signature: String,
                                      _ relationship: String, ordered: Bool) {
        ManagedRecordCollector.add(collector, ManagedMember(owner: owner, name: relationship, declaration: signature,
                                                            shape: .toMany(destination: NSManagedObject.self, ordered: ordered ? true : nil)))
    }
}

/// The `@Managed` classes of the process and their members, read once from the `ocd_managed` section of
/// the image OpenCoreData is linked into (SwiftPM links a program's modules into one image).
enum ManagedClasses {
    /// Filled once, then only read.
    struct Catalog: @unchecked Sendable {
        /// Members by the class that declares them.
        var members: [ObjectIdentifier: [ManagedMember]] = [:]
        /// The classes by their name without module (`Animal` for `ZooKit.Animal`).
        var classesByPlainName: [String: [NSManagedObject.Type]] = [:]
        /// The `@KeyValue` properties by the class that declares them, then by name.
        var keyValues: [ObjectIdentifier: [String: KeyValueProperty]] = [:]
        /// Every `@KeyValue` property, at its ``KeyValueProperty/index``.
        var allKeyValues: [KeyValueProperty] = []
    }

    static let catalog: Catalog = {
        var catalog = Catalog()
        guard let start = ocd_managed_section_start(), let end = ocd_managed_section_end(), end > start else { return catalog }
        let collector = ManagedRecordCollector()
        let stride = MemoryLayout<UnsafeRawPointer>.stride
        let count = (end - start) / stride
        for i in 0..<count {
            guard let pointer = start.load(fromByteOffset: i * stride, as: UnsafeRawPointer?.self) else { continue }
            let record = unsafeBitCast(pointer, to: _ManagedMacroSupport.SectionRecord.self)
            withExtendedLifetime(collector) { record(Unmanaged.passUnretained(collector).toOpaque()) }
        }
        var seen = Set<ObjectIdentifier>()
        func addClass(_ owner: NSManagedObject.Type) {
            guard seen.insert(ObjectIdentifier(owner)).inserted else { return }
            let name = NSStringFromClass(owner)
            let plain = name.split(separator: ".").last.map(String.init) ?? name
            catalog.classesByPlainName[plain, default: []].append(owner)
        }
        for member in collector.members {
            catalog.members[ObjectIdentifier(member.owner), default: []].append(member)
            addClass(member.owner)
        }
        for var property in collector.keyValues {
            property.index = catalog.allKeyValues.count
            catalog.allKeyValues.append(property)
            catalog.keyValues[ObjectIdentifier(property.owner), default: [:]][property.name] = property
            addClass(property.owner)
        }
        return catalog
    }()

    /// The members of `cls` and of its superclasses up to `NSManagedObject`.
    static func members(of cls: NSManagedObject.Type) -> [ManagedMember] {
        var result: [ManagedMember] = []
        var current: AnyClass? = cls
        while let c = current, c != NSManagedObject.self {
            result += catalog.members[ObjectIdentifier(c)] ?? []
            current = _getSuperclass(c)
        }
        return result
    }

    /// The `@KeyValue` property `name` of `cls` or of its superclasses.
    static func keyValueProperty(of cls: AnyClass, named name: String) -> KeyValueProperty? {
        guard !catalog.keyValues.isEmpty else { return nil }
        var current: AnyClass? = cls
        while let c = current, c != NSManagedObject.self {
            if let property = catalog.keyValues[ObjectIdentifier(c)]?[name] { return property }
            current = _getSuperclass(c)
        }
        return nil
    }

    /// Warnings already logged (a class not found is logged once per entity and name).
    private static let warned = Mutex<Set<String>>([])

    /// The class of an entity: `representedClassName` (`managedObjectClassName`) in the module of the
    /// bundle the model was read from, then in `modules` (those of the model's other classes), then as
    /// written (`NSClassFromString`), then by its name without module among the `@Managed` classes of
    /// the program. `nil` when not found (see ``notFound(_:warnings:)``).
    static func lookup(_ entity: NSEntityDescription, modules: [String] = []) -> NSManagedObject.Type? {
        let name = declaredName(entity)
        guard !name.isEmpty, name != "NSManagedObject" else { return NSManagedObject.self }
        for module in entity.classModules + modules {
            if let cls = Foundation.NSClassFromString("\(module).\(name)") as? NSManagedObject.Type { return cls }
        }
        if let cls = Foundation.NSClassFromString(name) as? NSManagedObject.Type { return cls }
        return uniqueClass(named: name)
    }

    /// The `@Managed` class whose name without module is `name`'s, when exactly one has it.
    static func uniqueClass(named name: String) -> NSManagedObject.Type? {
        let candidates = catalog.classesByPlainName[plainName(name)] ?? []
        return candidates.count == 1 ? candidates[0] : nil
    }

    /// The entity's class name without Xcode's leading dot ("current product module").
    private static func declaredName(_ entity: NSEntityDescription) -> String {
        let name = entity.managedObjectClassName ?? ""
        return name.hasPrefix(".") ? String(name.dropFirst()) : name
    }

    /// An entity whose class was not found: `NSManagedObject`, and a warning, as Core Data does.
    static func notFound(_ entity: NSEntityDescription, warnings: inout [String]) -> NSManagedObject.Type {
        let name = declaredName(entity)
        let plain = plainName(name)
        let candidates = catalog.classesByPlainName[plain] ?? []
        let entityName = entity.name ?? "?"
        let warning = candidates.isEmpty
            ? "warning: entity \(entityName): no class named \(name) was found (modules tried: \(entity.classModules.isEmpty ? "none" : entity.classModules.joined(separator: ", "))); its objects are plain NSManagedObject instances"
            : "warning: entity \(entityName): \(candidates.count) @Managed classes are named \(plain) (\(candidates.map { NSStringFromClass($0) }.sorted().joined(separator: ", "))); set managedObjectClassName to one of them. Its objects are plain NSManagedObject instances"
        warnings.append(warning)
        if warned.withLock({ $0.insert(entityName + "\u{0}" + name).inserted }) { modelLogger.warning("\(warning)") }
        return NSManagedObject.self
    }

    /// The warnings of ``misfits(of:entity:classOf:)`` for a model (its version name, when read from a
    /// model file), each logged once: a class may describe another version of the model, so a misfit does
    /// not fail the load (as in Core Data); accessing the property on an object of this model traps.
    static func warnMisfits(_ misfits: [String], model version: String?) -> [String] {
        let model = version.map { "the model version \"\($0)\"" } ?? "this model"
        return misfits.map { misfit in
            let warning = "warning: \(misfit) (in \(model); the class may describe another version of the model: accessing the property on an object of this model traps)"
            if warned.withLock({ $0.insert(warning).inserted }) { modelLogger.warning("\(warning)") }
            return warning
        }
    }

    /// The module a class belongs to (`nil` for one `NSStringFromClass` names without a module).
    static func module(of cls: AnyClass) -> String? {
        let parts = NSStringFromClass(cls).split(separator: ".")
        return parts.count > 1 ? parts.dropLast().joined(separator: ".") : nil
    }

    private static func plainName(_ name: String) -> String { name.split(separator: ".").last.map(String.init) ?? name }

    /// What does not fit between the `@Managed` members of `cls` (and its superclasses) and `entity`:
    /// one message per member, naming the class, the property and the entity (warnings of the load:
    /// see ``warnMisfits(_:model:)``). `classOf` gives the class
    /// each entity resolved to (for relationship destinations).
    static func misfits(of cls: NSManagedObject.Type, entity: NSEntityDescription,
                        classOf: (NSEntityDescription) -> NSManagedObject.Type) -> [String] {
        let entityName = entity.name ?? "?"
        var problems: [String] = []
        let byName = entity.propertiesByName
        for member in members(of: cls) {
            let owner = NSStringFromClass(member.owner)
            let what = member.declaration
            // `primitiveName` beside `name`: Core Data's primitive accessor of attribute `name`.
            let (modelName, isPrimitive) = _ManagedMacroSupport.Property.modelName(of: member.name, in: byName)
            var property = byName[modelName]
            if isPrimitive, let p = property, !(p is NSAttributeDescription) {
                problems.append("class \(owner), @Managed \(what), entity \(entityName): primitive accessors are supported for attributes only, and \(modelName) is not an attribute")
                continue
            }
            if property == nil, case .toMany = member.shape {
                property = byName[member.name.prefix(1).lowercased() + member.name.dropFirst()]
            }
            guard let property else {
                problems.append("class \(owner), @Managed \(what): entity \(entityName) has no property \(member.name)")
                continue
            }
            let problem: String?
            switch (member.shape, property) {
            case (.attribute(let declared), let a as NSAttributeDescription):
                problem = ManagedAttributeTypes.fits(declared, a.attributeType) || a.attributeType == .undefinedAttributeType ? nil
                    : "\(a.name) is an attribute of type \(a.attributeType.name)\(ManagedAttributeTypes.advice(for: a.attributeType))"
            case (.dictionary, let a as NSAttributeDescription):
                problem = [.compositeAttributeType, .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType].contains(a.attributeType) ? nil
                    : "\(a.name) is an attribute of type \(a.attributeType.name)\(ManagedAttributeTypes.advice(for: a.attributeType))"
            case (.transformable, let a as NSAttributeDescription):
                problem = [.transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType].contains(a.attributeType) ? nil
                    : "\(a.name) is an attribute of type \(a.attributeType.name)\(ManagedAttributeTypes.advice(for: a.attributeType))"
            case (.toOne(let type), let r as NSRelationshipDescription) where !r.isToMany:
                problem = Self.destinationProblem(r, type, classOf)
            case (.toMany(let type, let ordered), let r as NSRelationshipDescription) where r.isToMany:
                if let ordered, ordered != r.isOrdered {
                    problem = r.isOrdered ? "\(r.name) is an ordered to-many relationship: declare it NSOrderedSet?"
                        : "\(r.name) is an unordered to-many relationship: declare it NSSet? or Set<\(r.destinationEntity?.name ?? "?")>"
                } else {
                    problem = Self.destinationProblem(r, type, classOf)
                }
            case (_, let a as NSAttributeDescription):
                problem = "\(a.name) is an attribute of type \(a.attributeType.name)\(ManagedAttributeTypes.advice(for: a.attributeType))"
            case (_, let r as NSRelationshipDescription):
                let destination = r.destinationEntity.map { NSStringFromClass(classOf($0)) } ?? "?"
                problem = r.isToMany
                    ? "\(r.name) is a to-many relationship to \(r.destinationEntity?.name ?? "?"): declare it \(r.isOrdered ? "NSOrderedSet?" : "NSSet? or Set<\(destination)>")"
                    : "\(r.name) is a to-one relationship to \(r.destinationEntity?.name ?? "?"): declare it \(destination)?"
            default:
                problem = "\(property.name) is neither an attribute nor a relationship"
            }
            if let problem { problems.append("class \(owner), @Managed \(what), entity \(entityName): \(problem)") }
        }
        return problems
    }

    private static func destinationProblem(_ r: NSRelationshipDescription, _ declared: NSManagedObject.Type,
                                           _ classOf: (NSEntityDescription) -> NSManagedObject.Type) -> String? {
        guard declared != NSManagedObject.self, let destination = r.destinationEntity else { return nil }
        let cls = classOf(destination)
        if isKind(cls, of: declared) { return nil }
        return "the destination of \(r.name), entity \(destination.name ?? "?"), has the class \(NSStringFromClass(cls)), which is not a \(NSStringFromClass(declared))"
    }

    private static func isKind(_ cls: AnyClass, of ancestor: AnyClass) -> Bool {
        var current: AnyClass? = cls
        while let c = current {
            if c == ancestor { return true }
            current = _getSuperclass(c)
        }
        return false
    }

    /// The module names a model's classes may live in, from where its file was read: the target of a
    /// SwiftPM resource bundle (`Package_Target.resources` on Linux, `Package_Target.bundle` on Darwin;
    /// every suffix after an underscore, since package names may hold underscores), or the executable's
    /// module for a model beside it.
    static func modules(forModelAt url: URL) -> [String] {
        let folder = url.standardizedFileURL.deletingLastPathComponent()
        var modules: [String] = []
        let name = folder.lastPathComponent
        for suffix in [".resources", ".bundle"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            var index = base.startIndex
            while let underscore = base[index...].firstIndex(of: "_") {
                let rest = String(base[base.index(after: underscore)...])
                if !rest.isEmpty { modules.append(rest) }
                index = base.index(after: underscore)
            }
            modules.append(base)
        }
        let main = [Bundle.main.bundleURL, Bundle.main.resourceURL].compactMap { $0?.standardizedFileURL }
        if main.contains(folder), let executable = Bundle.main.executableURL?.lastPathComponent {
            modules.append(String(executable.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" }))
        }
        return modules.map { String($0.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" }) }
    }
}
