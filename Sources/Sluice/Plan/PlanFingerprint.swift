import Crypto

extension PlanSettings {
    /// A hash of what the plan says (each message's type, name, description and
    /// properties with their types, `required` and descriptions, in plan order),
    /// not of how the file writes it: a comment or a reordered key changes
    /// nothing. A generated catalog carries it in its header, so a catalog that
    /// no longer matches its plan is found (`sluice plan swift --check`).
    public var fingerprint: String {
        var text = "sluice-plan-1\n"
        var messages = events + (screens ?? [])
        if let identify { messages.append(identify) }
        for message in messages {
            text += "\(message.type.rawValue)\t\(message.name)\t\(message.additionalProperties)\t\(message.description ?? "")\n"
            for property in message.properties {
                text += "\t\(property.name)\t\(property.type)\t\(property.required)\t\(property.description ?? "")\n"
            }
        }
        // The description of an enum lists its members; a string member and a number of the same text differ.
        for message in messages {
            for property in message.properties {
                if case .enumeration(let members) = property.type.base {
                    text += "\(message.name).\(property.name):" + members.map { member in
                        switch member {
                        case .string: return "s"
                        case .number: return "n"
                        case .boolean: return "b"
                        }
                    }.joined() + "\n"
                }
            }
        }
        return SHA256.hash(data: Array(text.utf8)).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
