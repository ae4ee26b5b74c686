import SluiceJSON

extension RedactionWalk {
    /// The node indexes of the keys from the root down to `node` (a key: down to
    /// itself; an array element: down to its array's key).
    static func keyPath(to node: Int, isKey: Bool, _ json: JSONView, into keys: inout [Int]) {
        var container = 0
        while true {
            let end = json.after(container)
            var next = -1
            if json.kind(container) == .object {
                var key = container + 1
                while key < end {
                    let valueEnd = json.after(key + 1)
                    if node == key || (node > key && node < valueEnd) {
                        keys.append(key)
                        if node == key || node == key + 1 { return }
                        next = key + 1
                        break
                    }
                    key = valueEnd
                }
            } else {
                var element = container + 1
                while element < end {
                    let elementEnd = json.after(element)
                    if node == element { return }
                    if node > element && node < elementEnd {
                        next = element
                        break
                    }
                    element = elementEnd
                }
            }
            guard next >= 0 else { return }
            container = next
        }
    }
}
