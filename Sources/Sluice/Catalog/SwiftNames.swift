/// Plan names made Swift identifiers, the same way every time: words split at
/// anything that is not a letter or a digit (`movie_tapped`, `Order Completed`,
/// `$insert_id`), joined in camel case, a leading digit guarded with `_`,
/// keywords in backticks, and names that would collide numbered in plan order.
struct SwiftNames {
    /// Swift's keywords: as names they need backticks.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as",
        "await", "false", "is", "nil", "super", "throws", "true", "try", "some", "any", "consume", "copy", "borrowing",
        "consuming", "macro", "package",
    ]
    /// Names not even backticks make usable as a case or a label: they get a `_` after them.
    static let unusable: Set<String> = ["self", "Self", "Type", "Protocol", "_"]

    /// The words of `name`: runs of letters and digits.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in name {
            if character.isLetter || character.isNumber, character != "_" {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `movie_tapped` → `movieTapped`, `URL_path` → `urlPath`, `9lives` → `_9lives`; `fallback` when nothing is left.
    static func lowerCamel(_ name: String, fallback: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return fallback }
        let head = first == first.uppercased() ? first.lowercased() : first.prefix(1).lowercased() + first.dropFirst()
        return guarded(head + parts.dropFirst().map(capitalized).joined())
    }

    /// `like_toggled` → `LikeToggled`.
    static func upperCamel(_ name: String, fallback: String) -> String {
        let parts = words(name)
        guard !parts.isEmpty else { return fallback }
        return guarded(parts.map(capitalized).joined())
    }

    private static func capitalized(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }

    private static func guarded(_ identifier: String) -> String {
        guard let first = identifier.first else { return identifier }
        return first.isNumber ? "_" + identifier : identifier
    }

    /// An identifier as written in code: backticks around a keyword (`unique` already put `_`
    /// after a name not even backticks make usable).
    static func code(_ identifier: String) -> String {
        keywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    /// Identifiers taken so far in one scope: a name already taken (or reserved) gets `2`, `3`, … after it.
    private var taken: Set<String>

    init(reserved: Set<String> = []) { taken = reserved }

    mutating func unique(_ name: String) -> String {
        let identifier = SwiftNames.unusable.contains(name) ? name + "_" : name
        var candidate = identifier
        var number = 2
        while taken.contains(candidate) || taken.contains(SwiftNames.code(candidate)) {
            candidate = identifier + String(number)
            number += 1
        }
        taken.insert(candidate)
        return candidate
    }
}
