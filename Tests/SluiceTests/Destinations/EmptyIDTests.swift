import Foundation
@testable import Sluice
import Testing

/// No provider record carries an empty id, distinct events never share an insert
/// id, and a JSON-number id is its text everywhere (`MessageIdentity`).
///
/// Inputs follow a public router's fixture shape (`{"userId": "", "anonymousId":
/// "anon-12345", "messageId": ""}`). Rules: Mixpanel excludes `distinct_id: ""`
/// from behavioural analysis and deduplicates on `$insert_id`
/// (docs.mixpanel.com/docs/tracking-methods/data-import/import-events); Amplitude
/// deduplicates on `insert_id` and refuses empty ids (amplitude.com/docs/apis/analytics/http-v2);
/// Segment's ids are strings (segment.com/docs/connections/spec/common).
@Suite struct EmptyIDTests {
    static let providers = [
        "{type: mixpanel}", "{type: amplitude}", "{type: ga4}", "{type: ga4, stream: web}",
        "{type: adjust, app_token: 4w565xzmb54d, tokens: {movie_tapped: f0ob4r}}", "{type: segment}",
    ]
    /// The id keys of every provider's records.
    static let idKeys = ["distinct_id", "$user_id", "$device_id", "user_id", "device_id", "app_instance_id", "client_id",
                         "web_uuid", "userId", "anonymousId", "messageId", "$insert_id", "insert_id"]

    static let blanks = [#""""#, #""   ""#, #""\t""#, #""\u00a0""#, #""\u3000 ""#]

    private func ids(in record: String) throws -> [String: Any] {
        var found: [String: Any] = [:]
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, item) in object {
                    if EmptyIDTests.idKeys.contains(key) { found[key] = item }
                    walk(item)
                }
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(try JSONSerialization.jsonObject(with: Data(record.utf8)))
        return found
    }

    @Test(arguments: providers, blanks)
    func aBlankUserIDAndMessageIDAreAbsentNeverWrittenEmpty(_ provider: String, _ blank: String) throws {
        var destination = try DestinationHarness(provider)
        let line = trackJSON(userId: nil, anonymousId: "anon-12345")
            .replacingAll(#""messageId":"m-1""#, with: #""messageId":\#(blank),"userId":\#(blank)"#)
        let record = try destination.encode(line).get()
        for (key, value) in try ids(in: record) {
            let text = try #require(value as? String, "\(key) is not a string in \(record)")
            #expect(!text.trimmingCharacters(in: .whitespacesAndNewlines.union(.init(charactersIn: "\u{3000}"))).isEmpty,
                    "\(provider): \(key) is blank in \(record)")
        }
        #expect(!record.contains(#""userId""#) && !record.contains(#""$user_id""#) && !record.contains(#""user_id""#))
    }

    @Test(arguments: [
        ("{type: mixpanel}", [#""distinct_id":"12345""#, #""$user_id":"12345""#]),
        ("{type: amplitude}", [#""user_id":"12345""#]),
        ("{type: ga4}", [#""user_id":"12345""#]),
        ("{type: segment}", [#""userId":"12345""#]),
    ])
    func aNumberUserIDIsItsTextAsAString(_ provider: String, _ expected: [String]) throws {
        var destination = try DestinationHarness(provider)
        let record = try destination.encode(trackJSON(userId: nil).replacingAll(#""messageId":"m-1""#, with: #""messageId":"m-1","userId":12345"#)).get()
        for member in expected { #expect(record.contains(member), "\(record)") }
    }

    @Test(arguments: ["{type: mixpanel}", "{type: amplitude}"])
    func distinctEventsWithoutAMessageIDNeverShareAnInsertIDAndTheSameEventKeepsItsOwn(_ provider: String) throws {
        let key = provider.contains("mixpanel") ? "$insert_id" : "insert_id"
        var destination = try DestinationHarness(provider)
        func insertID(_ line: String) throws -> String {
            try #require(try ids(in: destination.encode(line).get())[key] as? String)
        }
        for messageID in [#""messageId":"""#, #""messageId":" ""#, #""messageId":null"#] {
            let first = trackJSON(properties: #"{"movie_id":5}"#).replacingAll(#""messageId":"m-1""#, with: messageID)
            let second = trackJSON(properties: #"{"movie_id":6}"#).replacingAll(#""messageId":"m-1""#, with: messageID)
            #expect(try insertID(first) != insertID(second))
            #expect(try insertID(first) == insertID(first))
        }
        // A number id and the string of its text are the same message.
        let number = trackJSON().replacingAll(#""messageId":"m-1""#, with: #""messageId":77"#)
        let string = trackJSON().replacingAll(#""messageId":"m-1""#, with: #""messageId":"77""#)
        #expect(try insertID(number) == insertID(string))
    }

    @Test(arguments: [
        (#""anonymousId":"   ""#, false), (#""anonymousId":"""#, false), (#""userId":"\u00a0""#, false),
        (#""anonymousId":null"#, false), (#""anonymousId":true"#, false),
        (#""userId":42"#, true), (#""anonymousId":" a ""#, true),
    ])
    func theInputCheckTakesTheSameIDsAsTheProviders(_ identity: String, _ accepted: Bool) throws {
        let line = #"{"type":"track","event":"tap","timestamp":"2026-11-20T08:00:00Z",\#(identity)}"#
        let result = Array(line.utf8).withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: 1)) }
        switch result {
        case .success: #expect(accepted)
        case .failure(let rejection): #expect(!accepted && rejection.reason == .missingIdentity)
        }
    }

    @Test(arguments: [("", true), ("  \t\r\n", true), ("\u{00A0}\u{2007}\u{3000}\u{FEFF}", true), (" a ", false),
                      ("é", false), ("\u{200D}", false), ("0", false)])
    func blankIsEmptyOrOnlyWhiteSpace(_ text: String, _ blank: Bool) {
        #expect(Array(text.utf8).withUnsafeBytes { MessageIdentity.isBlank($0) } == blank)
    }
}
