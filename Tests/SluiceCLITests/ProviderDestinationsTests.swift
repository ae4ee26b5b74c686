import Foundation
import SluiceTestSupport
import Testing

/// The generated stream through `pipelines/providers.yaml`: every provider's
/// file read back and checked against that provider's rules.
@Suite struct ProviderDestinationsTests {
    private func objects(_ directory: TemporaryDirectory, _ destination: String) -> [[String: Any]] {
        directory.files().filter { $0.hasPrefix("out/\(destination)/") }.flatMap { file -> [[String: Any]] in
            guard let bytes = TestGzip.decompressFile(directory.file(file)) else {
                Issue.record("\(file) is not valid gzip")
                return []
            }
            return ndjsonLines(bytes).map { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:] }
        }
    }

    private func isGA4Name(_ name: String, max: Int = 40) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII, name.count <= max else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
            && !["firebase_", "ga_", "google_", "gtag."].contains { name.hasPrefix($0) }
    }

    @Test func theGeneratedStreamReachesAllFiveProvidersInTheirOwnFormats() throws {
        let directory = TemporaryDirectory()
        let run = try SluiceBinary.shell(
            "$SLUICE generate --events 6000 --seed 5 --malformed 0.01 | $SLUICE run --pipeline \(repositoryRoot)/pipelines/providers.yaml --stats stats.json",
            in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let stats = (try JSONSerialization.jsonObject(with: FileManager.default.contents(atPath: directory.file("stats.json"))!)) as! [String: Any]
        #expect(stats["balanced"] as? Bool == true)
        #expect(stats["lines_in"] as? Int == 6000)

        let mixpanel = objects(directory, "mixpanel")
        #expect(!mixpanel.isEmpty)
        for record in mixpanel {
            let properties = record["properties"] as! [String: Any]
            let insertID = properties["$insert_id"] as! String
            #expect(insertID.count <= 36 && insertID.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" })
            #expect(properties["time"] is Int)
            #expect(properties.count < 255)
            #expect((record["event"] as! String) != "Avatar Changed", "rename did not apply")
            for case let text as String in properties.values { #expect(text.utf8.count <= 255) }
        }
        #expect(Set(mixpanel.map { $0["event"] as! String }).contains("avatar_changed"))

        let amplitude = objects(directory, "amplitude")
        #expect(!amplitude.isEmpty)
        for record in amplitude {
            #expect(record["event_type"] is String && record["time"] is Int && record["session_id"] is Int)
            let ids = [record["user_id"], record["device_id"]].compactMap { $0 as? String }
            #expect(!ids.isEmpty && ids.allSatisfy { $0.count >= 5 })
        }
        #expect(amplitude.contains { $0["event_type"] as? String == "$identify" })

        let ga4 = objects(directory, "ga4")
        #expect(!ga4.isEmpty)
        for body in ga4 {
            let id = body["app_instance_id"] as! String
            #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
            for event in body["events"] as! [[String: Any]] {
                let name = event["name"] as! String
                #expect(isGA4Name(name), "\(name)")
                let params = event["params"] as! [String: Any]
                #expect(params.count <= 25)
                #expect((params["engagement_time_msec"] as? Int ?? 0) >= 1)
                for (key, value) in params {
                    #expect(isGA4Name(key), "\(key)")
                    #expect(value is String || value is NSNumber, "\(key) is \(value)")
                    if let text = value as? String { #expect(text.count <= 100) }
                }
            }
        }

        let adjust = objects(directory, "adjust")
        #expect(!adjust.isEmpty)
        for record in adjust {
            #expect(record["app_token"] as? String == "4w565xzmb54d")
            #expect(["f0ob4r", "abc123"].contains(record["event_token"] as? String))
            for value in (record["callback_params"] as? [String: Any] ?? [:]).values { #expect(value is String) }
        }

        let segment = objects(directory, "segment")
        #expect(!segment.isEmpty)
        #expect(segment.allSatisfy { ($0["messageId"] as? String ?? "").count <= 100 && $0["type"] as? String != "session" })
    }
}
