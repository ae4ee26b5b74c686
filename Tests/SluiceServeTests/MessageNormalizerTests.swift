import Foundation
import Sluice
import SluiceJSON
@testable import SluiceServe
import SluiceTestSupport
import Testing

@Suite struct MessageNormalizerTests {
    let normalizer = MessageNormalizer(keys: WriteKeys(["k1", "k2"]), trustedProxies: ["10.0.0.5"])
    let received = EventTime.parseISO8601("2026-11-20T10:00:10.000Z")!

    func lines(_ body: String, _ endpoint: IngestEndpoint = .batch, user: String? = "k1",
               peer: IngestPeer = IngestPeer(address: "192.0.2.7")) throws -> [[String: Any]] {
        let result = try normalizer.normalize(body: Array(body.utf8), endpoint: endpoint, basicUser: user, peer: peer, receivedAt: received)
        let text = String(decoding: result.lines, as: UTF8.self)
        #expect(text.hasSuffix("\n"))
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    func refusal(_ body: String, _ endpoint: IngestEndpoint = .batch, user: String? = "k1") -> IngestRefusal? {
        do {
            _ = try normalizer.normalize(body: Array(body.utf8), endpoint: endpoint, basicUser: user,
                                         peer: IngestPeer(address: "192.0.2.7"), receivedAt: received)
            return nil
        } catch {
            return error
        }
    }

    @Test func timestampIsCorrectedForTheDeviceClockSkewFromSentAtAndOriginalTimestamp() throws {
        // The device clock is 1 h ahead: sent at 11:00:10 device time, called 5 s before.
        let body = #"{"batch":[{"type":"track","event":"A","userId":"u","originalTimestamp":"2026-11-20T11:00:05.000Z"}],"sentAt":"2026-11-20T11:00:10.000Z"}"#
        let message = try lines(body)[0]
        #expect(message["timestamp"] as? String == "2026-11-20T10:00:05.000Z")
        #expect(message["receivedAt"] as? String == "2026-11-20T10:00:10.000Z")
        #expect(message["sentAt"] as? String == "2026-11-20T11:00:10.000Z")
        #expect(message["originalTimestamp"] as? String == "2026-11-20T11:00:05.000Z")
    }

    @Test func aTimestampTheMessageGivesWithoutOriginalTimestampIsKept() throws {
        let body = #"{"batch":[{"type":"track","event":"A","userId":"u","timestamp":"2025-01-01T00:00:00Z"}],"sentAt":"2026-11-20T11:00:10.000Z"}"#
        #expect(try lines(body)[0]["timestamp"] as? String == "2025-01-01T00:00:00Z")
    }

    @Test func withoutAnyTimeTheTimestampIsReceivedAtAndWithOnlyOriginalTimestampItIsThat() throws {
        #expect(try lines(#"{"batch":[{"type":"track","event":"A","userId":"u"}]}"#)[0]["timestamp"] as? String
            == "2026-11-20T10:00:10.000Z")
        #expect(try lines(#"{"batch":[{"type":"track","event":"A","userId":"u","originalTimestamp":"2026-11-20T09:00:00Z"}]}"#)[0]["timestamp"]
            as? String == "2026-11-20T09:00:00Z")
    }

    @Test func theMessagesOwnReceivedAtAndWriteKeyAreNotKept() throws {
        let message = try lines(#"{"writeKey":"k1","batch":[{"type":"track","event":"A","userId":"u","receivedAt":"2000-01-01T00:00:00Z","writeKey":"k1"}]}"#,
                                user: nil)[0]
        #expect(message["writeKey"] == nil)
        #expect(message["receivedAt"] as? String == "2026-11-20T10:00:10.000Z")
    }

    @Test func theBatchContextGoesIntoEachItemWhoseOwnMembersWin() throws {
        let body = #"{"context":{"library":{"name":"analytics-python"},"locale":"en"},"batch":[{"type":"track","event":"A","userId":"u","context":{"locale":"fr"}},{"type":"identify","userId":"v"}]}"#
        let messages = try lines(body)
        let first = messages[0]["context"] as! [String: Any]
        #expect(first["locale"] as? String == "fr")
        #expect((first["library"] as? [String: Any])?["name"] as? String == "analytics-python")
        #expect(first["ip"] as? String == "192.0.2.7")
        let second = messages[1]["context"] as! [String: Any]
        #expect(second["locale"] as? String == "en")
    }

    @Test func contextIPIsKeptWhenGivenAndForwardedForIsUsedOnlyFromATrustedProxy() throws {
        let given = try lines(#"{"batch":[{"type":"track","event":"A","userId":"u","context":{"ip":"203.0.113.1"}}]}"#)[0]
        #expect((given["context"] as! [String: Any])["ip"] as? String == "203.0.113.1")
        let body = #"{"batch":[{"type":"track","event":"A","userId":"u"}]}"#
        let proxied = try lines(body, peer: IngestPeer(address: "10.0.0.5", forwardedFor: "198.51.100.9, 10.0.0.5"))[0]
        #expect((proxied["context"] as! [String: Any])["ip"] as? String == "198.51.100.9")
        let untrusted = try lines(body, peer: IngestPeer(address: "192.0.2.8", forwardedFor: "198.51.100.9"))[0]
        #expect((untrusted["context"] as! [String: Any])["ip"] as? String == "192.0.2.8")
    }

    @Test func aSingleMessageEndpointSetsTheTypeFromItsPath() throws {
        let message = try lines(#"{"event":"A","userId":"u","properties":{"n":1}}"#, .track)[0]
        #expect(message["type"] as? String == "track")
        #expect(IngestEndpoint(path: "/v1/screen") == .screen)
        #expect(IngestEndpoint(path: "/v1/batch?x=1") == .batch)
        #expect(IngestEndpoint(path: "/v2/batch") == nil)
    }

    @Test func aMessageThePipelineWillRejectIsStillAccepted() throws {
        let messages = try lines(#"{"batch":[{"event":"no type, no user"}]}"#)
        #expect(messages.count == 1)
        #expect(messages[0]["type"] == nil)
    }

    @Test func valuesPassAsTheyAreButCompactOnOneLine() throws {
        let body = "{\"batch\":[{\"type\":\"track\",\"event\":\"A\",\"userId\":\"u\",\"properties\":{\n \"big\": 1e21, \"neg\": -0.0, \"s\": \"\\u00e9\\n\"}}]}"
        let result = try normalizer.normalize(body: Array(body.utf8), endpoint: .batch, basicUser: "k1",
                                              peer: IngestPeer(address: nil), receivedAt: received)
        let text = String(decoding: result.lines, as: UTF8.self)
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.contains(#""properties":{"big":1e21,"neg":-0.0,"s":"\u00e9\n"}"#))
        #expect(!text.contains("\"ip\""))
    }

    @Test func badJSONIsA400AndAnUnknownOrMissingKeyA401() {
        #expect(refusal("{\"batch\":[")?.status == 400)
        #expect(refusal("[1,2]")?.status == 400)
        #expect(refusal(#"{"batch":{}}"#)?.status == 400)
        #expect(refusal(#"{"batch":[1]}"#)?.status == 400)
        #expect(refusal(#"{"batch":[{"type":"track"}]}"#, user: "nope")?.status == 401)
        #expect(refusal(#"{"batch":[{"type":"track"}]}"#, user: nil)?.status == 401)
        #expect(refusal(#"{"writeKey":"k2","batch":[{"type":"track"}]}"#, user: nil) == nil)
    }

    @Test func aMessageOver32KBOrABatchOver500KBIsRefusedWhole() {
        let big = String(repeating: "x", count: 33 * 1024)
        let message = refusal(#"{"batch":[{"type":"track","userId":"u"},{"type":"track","p":""# + big + #""}]}"#)
        #expect(message?.status == 400)
        #expect(message?.reason.contains("batch item 1") == true)
        let items = (0..<20).map { _ in #"{"type":"track","p":""# + String(repeating: "y", count: 30 * 1024) + #""}"# }
        let batch = refusal(#"{"batch":["# + items.joined(separator: ",") + "]}")
        #expect(batch?.status == 400)
        #expect(batch?.reason.contains("at most 512000") == true)
    }

    @Test func basicAuthGivesTheWriteKeyAsTheUserName() {
        #expect(WriteKeys.basicUser("Basic " + Data("k1:".utf8).base64EncodedString()) == "k1")
        #expect(WriteKeys.basicUser("Basic " + Data("k1".utf8).base64EncodedString()) == "k1")
        #expect(WriteKeys.basicUser("Bearer abc") == nil)
    }

    @Test func gzipBodiesInflateAndAGzipBombIsRefusedAtTheCap() throws {
        let body = Array(#"{"batch":[]}"#.utf8)
        #expect(try GzipBody.inflate(TestGzip.compress(body), limit: IngestLimits.batchBytes) == body)
        let bomb = TestGzip.compress([UInt8](repeating: 0x20, count: 50 << 20))
        #expect(bomb.count < 100_000)
        #expect(throws: IngestRefusal.self) { try GzipBody.inflate(bomb, limit: IngestLimits.batchBytes) }
        #expect(throws: IngestRefusal.self) { try GzipBody.inflate(body, limit: IngestLimits.batchBytes) }
        #expect(throws: IngestRefusal.self) { try GzipBody.inflate(Array(TestGzip.compress(body).dropLast(4)), limit: IngestLimits.batchBytes) }
    }
}
