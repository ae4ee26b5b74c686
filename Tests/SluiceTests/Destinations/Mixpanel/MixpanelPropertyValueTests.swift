import Foundation
@testable import Sluice
import SluiceJSON
import Testing

/// Lists and objects are cut to what Mixpanel's `/import` takes, instead of the event being refused whole.
@Suite struct MixpanelPropertyValueTests {
    /// The `properties` object Mixpanel receives for an event with `properties`.
    private func sent(_ properties: String, _ mixpanel: inout DestinationHarness) throws -> [String: Any] {
        let line = try mixpanel.encode(trackJSON(properties: properties)).get()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["properties"] as? [String: Any])
    }

    @Test func aListKeepsItsFirst254Elements() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let list = "[" + (0..<300).map(String.init).joined(separator: ",") + "]"
        let properties = try sent(#"{"ids":\#(list),"short":[1,2,3]}"#, &mixpanel)
        #expect((properties["ids"] as? [Int]) == Array(0..<254))
        #expect((properties["short"] as? [Int]) == [1, 2, 3])
        #expect(mixpanel.change("collection_cut") == 1)
    }

    @Test func anObjectKeepsItsFirst254Keys() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let object = "{" + (0..<260).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let properties = try sent(#"{"o":\#(object)}"#, &mixpanel)
        let kept = try #require(properties["o"] as? [String: Int])
        #expect(kept.count == 254 && kept["k0"] == 0 && kept["k253"] == 253 && kept["k254"] == nil)
        #expect(mixpanel.change("collection_cut") == 1)
    }

    @Test func aListOrObjectPropertyKeepsWhatFitsIn8KiB() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        // 100 products of about 120 bytes each: 12 KB as JSON.
        let products = (0..<100).map { #"{"sku":"SKU-\#($0)","name":"\#(String(repeating: "n", count: 80))","price":9.99}"# }
        let line = try mixpanel.encode(trackJSON(properties: #"{"products":[\#(products.joined(separator: ","))],"after":1}"#)).get()
        let document = try JSONDocument.parse(Array(line.utf8))
        let node = try #require(document.find(JSONPath("properties.products")))
        #expect(document.rawLength(node) <= 8192 && document.rawLength(node) > 8192 - 130)
        let kept = try #require(try sent(#"{"products":[\#(products.joined(separator: ","))]}"#, &mixpanel)["products"] as? [[String: Any]])
        #expect(kept.count == 68 && kept.last?["sku"] as? String == "SKU-67" && kept.last?["price"] as? Double == 9.99)
        #expect(document.find(JSONPath("properties.after")) != nil)
        #expect(mixpanel.change("collection_cut") == 2)
    }

    @Test func listsAndObjectsDeeperThanThreeLevelsAreLeftOut() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        // `a` is level 1, `b` and `f` 2, `c` and `f`'s lists 3: `d` and the list inside `f`'s first list, a fourth level, are left out.
        let properties = try sent(#"{"a":{"b":{"c":{"d":{"e":1},"x":2},"y":3},"f":[[[[1]]],[2]]}}"#, &mixpanel)
        let a = try #require(properties["a"] as? [String: Any])
        let b = try #require(a["b"] as? [String: Any])
        let c = try #require(b["c"] as? [String: Any])
        #expect(c.count == 1 && c["x"] as? Int == 2 && b["y"] as? Int == 3)
        let f = try #require(a["f"] as? [[Any]])
        #expect(f.count == 2 && f[0].isEmpty && (f[1] as? [Int]) == [2])
        #expect(mixpanel.change("collection_cut") == 2)
    }

    @Test func aValueAStageEditedIsCutAsEdited() throws {
        var document = try JSONDocument.parse(Array(trackJSON(properties: #"{"o":{"email":"x@example.com","l":[1,2]}}"#).utf8))
        let edited = document.set(JSONPath("properties.o.email"), string: "[email]")
        #expect(edited)
        var out = ByteBuffer()
        let cuts = MixpanelPropertyValue.event.append(document, try #require(document.find(JSONPath("properties.o"))), to: &out)
        #expect(String(decoding: out.array, as: UTF8.self) == #"{"email":"[email]","l":[1,2]}"#)
        #expect(cuts.strings == 0 && cuts.collections == 0)
    }

    @Test func profileListsAreNotCutAt254Elements() throws {
        var out = ByteBuffer()
        let document = try JSONDocument.parse(Array((#"{"l":["# + (0..<300).map(String.init).joined(separator: ",") + "]}").utf8))
        let list = try #require(document.find(JSONPath("l")))
        let cuts = MixpanelPropertyValue.profile.append(document, list, to: &out)
        #expect(out.count == document.rawLength(list) && cuts.collections == 0)
    }
}
