import Foundation
import SluiceTestSupport
import Testing

/// Segment's Ecommerce spec events, mixed into the generated stream, through the
/// real binary and `pipelines/providers.yaml`: every provider's files gunzipped and
/// read back, each record checked against its provider's rules (`ProviderRules`),
/// the money added up on every side, and the accounting balanced.
@Suite struct EcommerceEndToEndTests {
    private static let appInstance = #""context":{"device":{"appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f"},"locale":"en-US"}"#

    private func message(_ event: String, _ id: String, second: Int, properties: String) -> String {
        #"{"type":"track","event":"\#(event)","messageId":"\#(id)","timestamp":"2026-11-20T10:00:\#(String(format: "%02d", second))Z","anonymousId":"dev-shop-0001","userId":"shopper-0001",\#(Self.appInstance),"properties":\#(properties)}"#
    }

    /// `count` products `p<order>-<i>` at price i + 0.5, quantity i % 3 + 1; `padding` characters of text each.
    private func products(_ order: Int, _ count: Int, padding: Int = 0) -> (json: String, total: Double) {
        let text = String(repeating: "x", count: padding)
        var total = 0.0
        let list = (0..<count).map { index -> String in
            let price = Double(index) + 0.5, quantity = index % 3 + 1
            total += price * Double(quantity)
            let extra = padding == 0 ? "" : ["name", "brand", "variant", "category", "coupon", "c1", "c2", "c3", "c4", "c5"]
                .map { #","\#($0)":"\#(text)""# }.joined()
            return #"{"product_id":"p\#(order)-\#(index)","price":\#(price),"quantity":\#(quantity)\#(extra)}"#
        }
        return ("[" + list.joined(separator: ",") + "]", total)
    }

    @Test func ordersRefundsAndProductEventsReachEveryProviderWithTheirMeaningThere() throws {
        let directory = TemporaryDirectory()
        let small = products(1, 3), many = products(2, 230), big = products(3, 150, padding: 95)
        let orders = [(1, small), (2, many), (3, big)]
        var lines = orders.map { order, list in
            message("Order Completed", "order-\(order)", second: order,
                    properties: #"{"order_id":"o-\#(order)","revenue":\#(list.total),"currency":"USD","products":\#(list.json)}"#)
        }
        lines += [
            message("Order Refunded", "refund-1", second: 10, properties: #"{"order_id":"o-1","total":"12.5","currency":"USD"}"#),
            message("Product Viewed", "view-1", second: 11, properties: #"{"product_id":"p1-0","name":"Uno","price":"3.5","currency":"USD"}"#),
            message("Products Searched", "search-1", second: 12, properties: #"{"query":"blue roses"}"#),
        ]
        _ = directory.write("shop.ndjson", lines.map { $0 + "\n" }.joined())
        let result = try SluiceBinary.shell(
            "( $SLUICE generate --events 3000 --seed 11; cat shop.ndjson ) | " +
            "$SLUICE run --pipeline \(repositoryRoot)/pipelines/providers.yaml --stats stats.json",
            in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("stats.json"))))
                                 as? [String: Any])
        #expect(stats["balanced"] as? Bool == true)
        #expect(stats["lines_in"] as? Int == 3000 + lines.count)
        let destinations = stats["destinations"] as? [[String: Any]] ?? []
        func counts(_ name: String, _ key: String) -> [String: Int] {
            destinations.first { $0["name"] as? String == name }?[key] as? [String: Int] ?? [:]
        }
        func records(_ name: String) -> [[String: Any]] {
            // The events' file set only: a side output (`out/mixpanel/profiles/...`) holds another endpoint's records.
            directory.files().sorted().filter { file in
                let parts = file.split(separator: "/")
                return file.hasPrefix("out/\(name)/") && !(parts.count > 2 && ProviderDestinationsTests.sideOutputs.contains(String(parts[2])))
            }.flatMap { file -> [[String: Any]] in
                #expect(file.hasSuffix(".ndjson.gz"), "\(file) left unfinished")
                let bytes = TestGzip.decompressFile(directory.file(file)) ?? []
                return ndjsonLines(bytes).map { line in
                    let record = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] ?? [:]
                    switch name {
                    case "ga4": ProviderRules.checkGA4(record, line: String(decoding: line, as: UTF8.self), sessions: false)
                    case "amplitude": ProviderRules.checkAmplitude(record, line: String(decoding: line, as: UTF8.self))
                    case "mixpanel": ProviderRules.checkMixpanel(record, line: String(decoding: line, as: UTF8.self))
                    default: break
                    }
                    return record
                }
            }
        }

        // GA4: each order a purchase with its items, as many as GA4 takes in one request.
        let ga4Events = records("ga4").flatMap { $0["events"] as? [[String: Any]] ?? [] }
        let purchases = ga4Events.filter { $0["name"] as? String == "purchase" }.map { $0["params"] as? [String: Any] ?? [:] }
        #expect(purchases.map { $0["transaction_id"] as? String } == ["o-1", "o-2", "o-3"])
        #expect(purchases.allSatisfy { $0["currency"] as? String == "USD" && $0["order_id"] == nil && $0["products"] == nil })
        let itemCounts = purchases.map { ($0["items"] as? [Any])?.count ?? 0 }
        #expect(itemCounts[0] == 3 && itemCounts[1] == 200 && itemCounts[2] < 150)
        #expect(counts("ga4", "changes")["item_dropped_over_limit"] == 30)
        #expect(counts("ga4", "changes")["item_dropped_over_size"] == 150 - itemCounts[2])
        #expect(ga4Events.contains { $0["name"] as? String == "refund" })
        #expect(ga4Events.contains { $0["name"] as? String == "view_item" && (($0["params"] as? [String: Any])?["items"] as? [Any])?.count == 1 })
        #expect(ga4Events.contains { $0["name"] as? String == "search" })
        #expect(counts("ga4", "changes")["ecommerce_name_mapped"] == 6)

        // Amplitude: each order its own event, then a revenue event per product; the money adds up.
        let amplitude = records("amplitude")
        let orderEvents = amplitude.filter { $0["event_type"] as? String == "Order Completed" }
        #expect(orderEvents.count == 3 && orderEvents.allSatisfy { $0["revenue"] == nil })
        let productEvents = amplitude.filter { $0["event_type"] as? String == "Product Purchased" }
        #expect(productEvents.count == 3 + 230 + 150)
        let amplitudeRevenue = productEvents.reduce(0.0) { $0 + (($1["revenue"] as? NSNumber)?.doubleValue ?? .nan) }
        #expect(abs(amplitudeRevenue - orders.reduce(0.0) { $0 + $1.1.total }) < 0.001)
        #expect(Set(productEvents.compactMap { $0["insert_id"] as? String }).count == productEvents.count)
        #expect(amplitude.contains { $0["event_type"] as? String == "Order Refunded" && ($0["revenue"] as? NSNumber)?.doubleValue == -12.5 })
        #expect(amplitude.filter { ($0["event_type"] as? String ?? "").hasPrefix("Order") || $0["event_type"] as? String == "Product Purchased" }
            .allSatisfy { $0["language"] as? String == "en-US" })
        #expect(destinations.first { $0["name"] as? String == "amplitude" }?["records"] as? Int == amplitude.count)

        // Mixpanel: the order's amount as a property; Adjust: its revenue; Segment: the messages as they came.
        let mixpanelOrders = records("mixpanel").filter { $0["event"] as? String == "Order Completed" }
        #expect(mixpanelOrders.compactMap { (($0["properties"] as? [String: Any])?["amount"] as? NSNumber)?.doubleValue } ==
            orders.map { $0.1.total })
        let adjust = records("adjust").filter { $0["event_token"] as? String == "ordr01" }
        #expect(adjust.compactMap { ($0["revenue"] as? NSNumber)?.doubleValue } == orders.map { $0.1.total })
        #expect(adjust.allSatisfy { $0["currency"] as? String == "USD" })
        let segment = records("segment").filter { ($0["event"] as? String ?? "").hasPrefix("Order Completed") }
        #expect(segment.compactMap { (($0["properties"] as? [String: Any])?["products"] as? [Any])?.count } == [3, 230])
        #expect(counts("segment", "refused_by_reason")["message_too_large"] == 1)
    }
}
