import Foundation
import OpenSwiftData

// Small models for the rules a save checks: a delete rule that denies, relationship counts, uniqueness.

@Model final class Shelf {
    @Attribute(.unique) var label: String
    @Relationship(deleteRule: .deny, minimumModelCount: 0, maximumModelCount: 2, inverse: \Book.shelf)
    var books: [Book] = []

    init(label: String) { self.label = label }
}

@Model final class Book {
    @Attribute(.unique) var isbn: String
    var title: String
    var pages: Int
    var rating: Double?
    var shelf: Shelf?

    init(isbn: String, title: String, pages: Int = 100) {
        self.isbn = isbn
        self.title = title
        self.pages = pages
    }
}

/// A `Codable` struct stored as a composite attribute, an enum by its raw value, an array of values.
struct Coordinates: Codable, Hashable {
    var latitude: Double
    var longitude: Double
    var label: String?
}

enum Category: String, Codable, CaseIterable {
    case museum, park, monument
}

@Model final class Landmark {
    var name: String
    var coordinates: Coordinates
    var entrance: Coordinates?
    var category: Category
    var tags: [String]
    var visits: [Date] = []

    init(name: String, coordinates: Coordinates, category: Category, tags: [String]) {
        self.name = name
        self.coordinates = coordinates
        self.category = category
        self.tags = tags
    }
}

/// A type OpenSwiftData cannot store (a struct with an array field): the container says so, naming it.
struct Route: Codable, Hashable {
    var stops: [String]
}

@Model final class Tour {
    var route: Route

    init(route: Route) { self.route = route }
}

/// `#Unique` over two properties together and `#Index` over one and two, as Apple's documentation shows them.
@Model final class Reader {
    #Unique<Reader>([\.givenName, \.familyName], [\.card])
    #Index<Reader>([\.familyName], [\.familyName, \.givenName])

    var givenName: String
    var familyName: String
    var card: Int

    init(givenName: String, familyName: String, card: Int) {
        self.givenName = givenName
        self.familyName = familyName
        self.card = card
    }
}
