import Foundation

/// Typed reads of a coder's keys for the model classes' `init?(coder:)`: each asks for the classes the key
/// may hold (as a secure coder requires) and checks what comes back. A wrong type is a failure recorded on
/// the coder (``ModelArchiveDecoder/fail(_:_:)``), never a trap.
enum ArchiveKeys {
    /// The classes a property list value (`userInfo`) may be made of.
    static let plistClasses: [AnyClass] = [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSData.self, NSDate.self]

    /// The object under `key`, of one of `classes`; `nil` when the key is absent (Foundation's unarchiver
    /// records an error for a missing key, so it is not asked).
    static func object(_ coder: NSCoder, _ key: String, _ classes: [AnyClass]) -> Any? {
        guard coder.containsValue(forKey: key) else { return nil }
        return coder.decodeObject(of: classes, forKey: key)
    }

    /// A string, or `nil` when the key is absent; a failure when it holds something else.
    static func string(_ coder: NSCoder, _ key: String) -> String? {
        guard coder.containsValue(forKey: key) else { return nil }
        let object = coder.decodeObject(of: [NSString.self], forKey: key)
        if let s = object as? String { return s }
        if object != nil { return ModelArchiveDecoder.fail(coder, "\(key) is not a string") }
        return nil
    }

    /// An array whose elements are all `T`, decoded with `classes` (`NSArray` added); `nil` when absent.
    static func array<T>(_ coder: NSCoder, _ key: String, of classes: [AnyClass], as: T.Type) -> [T]? {
        guard coder.containsValue(forKey: key), let object = coder.decodeObject(of: [NSArray.self] + classes, forKey: key) else { return nil }
        guard let items = items(object) else { return ModelArchiveDecoder.fail(coder, "\(key) is not an array") }
        var result: [T] = []
        for item in items {
            guard let typed = item as? T else { return ModelArchiveDecoder.fail(coder, "\(key) holds a \(type(of: item)), not a \(T.self)") }
            result.append(typed)
        }
        return result
    }

    /// A string-keyed dictionary whose values are all `T`; `nil` when absent.
    static func dictionary<T>(_ coder: NSCoder, _ key: String, of classes: [AnyClass], as: T.Type) -> [String: T]? {
        guard coder.containsValue(forKey: key), let object = coder.decodeObject(of: [NSDictionary.self, NSString.self] + classes, forKey: key) else {
            return nil
        }
        guard let dictionary = object as? [String: Any] ?? (object as? NSDictionary).flatMap(bridged) else {
            ModelArchiveDecoder.failed(coder, "\(key) is not a dictionary with string keys")
            return nil
        }
        var result: [String: T] = [:]
        for (name, value) in dictionary {
            guard let typed = value as? T else { return ModelArchiveDecoder.fail(coder, "\(key)[\(name)] is a \(type(of: value)), not a \(T.self)") }
            result[name] = typed
        }
        return result
    }

    /// The names in lists of property names (uniqueness constraints, compound indexes), an element being a
    /// name or a property description.
    static func nameLists(_ coder: NSCoder, _ key: String) -> [[String]]? {
        guard let lists = array(coder, key, of: [NSArray.self, NSString.self, NSPropertyDescription.self], as: Any.self) else { return nil }
        var result: [[String]] = []
        for list in lists {
            guard let members = items(list) else { return ModelArchiveDecoder.fail(coder, "\(key) holds something other than lists") }
            var names: [String] = []
            for member in members {
                if let name = member as? String { names.append(name) } else if let property = member as? NSPropertyDescription { names.append(property.name) } else {
                    ModelArchiveDecoder.failed(coder, "\(key) holds a \(type(of: member)), not a property name")
            return nil
                }
            }
            result.append(names)
        }
        return result
    }

    /// `userInfo`: a dictionary of property list values; `nil` when absent or empty.
    static func userInfo(_ coder: NSCoder, _ key: String = "NSUserInfo") -> [AnyHashable: Any]? {
        guard let dictionary = dictionary(coder, key, of: plistClasses, as: Any.self), !dictionary.isEmpty else { return nil }
        return Dictionary(uniqueKeysWithValues: dictionary.map { (AnyHashable($0.key), $0.value) })
    }

    /// The elements of a decoded array (an `NSArray` from Foundation's unarchiver, `[Any]` from ours).
    static func items(_ object: Any) -> [Any]? {
        if let array = object as? [Any] { return array }
        if let array = object as? NSArray { return array.map { $0 } }
        return nil
    }

    private static func bridged(_ dictionary: NSDictionary) -> [String: Any]? {
        var result: [String: Any] = [:]
        for (key, value) in dictionary {
            guard let key = key as? String else { return nil }
            result[key] = value
        }
        return result
    }
}
