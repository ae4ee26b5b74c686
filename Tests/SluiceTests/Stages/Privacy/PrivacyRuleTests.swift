import Crypto
import Foundation
@testable import Sluice
@testable import SluiceJSON
import Testing

/// The `privacy` stage's rules, one behaviour per test, on the default settings unless said.
@Suite struct PrivacyRuleTests {
    typealias P = PrivacyCase

    // MARK: - Consent

    @Test func anOptedOutEventIsDroppedForConsent() throws {
        var stage = try P.stage()
        let outcome = StageCase.run([P.track(#""context":{"consent":{"analytics":false}}"#),
                                     P.track(#""context":{"consent":{"analytics":"FALSE"}}"#),
                                     P.track(#""context":{"consent":{"analytics":true}}"#)], through: &stage)
        #expect(outcome.events.count == 1)
        #expect(outcome.dropped.map(\.reason) == [.consent, .consent])
        #expect(P.counter(stage, "consent_opted_out") == 2)
    }

    @Test func categoryPreferencesWithholdTheDeniedDestinations() throws {
        let destinations = [
            DestinationDescriptor(index: 0, name: "archive", type: "ndjson", consentCategory: nil),
            DestinationDescriptor(index: 1, name: "mixpanel", type: "mixpanel", consentCategory: "Analytics"),
            DestinationDescriptor(index: 2, name: "adjust", type: "adjust", consentCategory: "Advertising"),
        ]
        var stage = try P.stage(destinations: destinations)
        let prefs = #""context":{"consent":{"categoryPreferences":{"analytics":true,"Advertising":false}}}"#
        let outcome = StageCase.run([P.track(prefs), P.track(#""context":{"consent":{"categoryPreferences":{"Analytics":true}}}"#),
                                     P.track()], through: &stage)
        #expect(outcome.events.count == 3)
        let first = try #require(outcome.events[0].withheld)
        #expect(first.reason == .consent && !first.contains(0) && !first.contains(1) && first.contains(2))
        // A category the preferences do not list is denied (Segment's rule).
        #expect(outcome.events[1].withheld?.contains(2) == true)
        #expect(outcome.events[2].withheld == nil)

        var allowing = try P.stage("{consent: {unlisted: allow}}", destinations: destinations)
        let allowed = StageCase.run([P.track(#""context":{"consent":{"categoryPreferences":{"Analytics":true}}}"#)], through: &allowing)
        #expect(allowed.events[0].withheld == nil)
    }

    @Test func theFlagAndThePreferencesAreFoundWhereverTheirPathsLead() throws {
        let destinations = [DestinationDescriptor(index: 0, name: "adjust", type: "adjust", consentCategory: "Advertising")]
        // Paths with no key in common, and paths sharing one key (the flag inside the preferences' parent).
        for settings in ["{consent: {field: optout.flag, categories: prefs}}", "{consent: {field: c.flag, categories: c.prefs}}"] {
            var stage = try P.stage(settings, destinations: destinations)
            let flag = settings.contains("optout") ? #""optout":{"flag":false}"# : #""c":{"flag":false}"#
            let prefs = settings.contains("optout") ? #""prefs":{"advertising":false}"# : #""c":{"prefs":{"advertising":false}}"#
            let outcome = StageCase.run([P.track(flag), P.track(prefs), P.track(#""c":{"other":1}"#)], through: &stage)
            #expect(outcome.dropped.map(\.reason) == [.consent], "\(settings)")
            #expect(outcome.events.count == 2)
            #expect(outcome.events[0].withheld?.contains(0) == true, "\(settings)")
            #expect(outcome.events[1].withheld == nil)
        }
    }

    @Test func consentOffLetsOptedOutEventsThrough() throws {
        var stage = try P.stage("{consent: false}")
        #expect(P.apply(P.track(#""context":{"consent":{"analytics":false}}"#), &stage) != nil)
    }

    // MARK: - Drop and allow

    @Test func dropRemovesFieldsByPathWithWildcards() throws {
        var stage = try P.stage(#"{drop: [context.device.advertisingId, "properties.*_email", "**.password"], redact: false}"#)
        let line = P.track(#""context":{"device":{"advertisingId":"ad-1","model":"X"}},"properties":{"user_email":"a","work_email":"b","#
            + #""plan":"pro","nested":{"password":"p","keep":1}},"password":"top""#)
        let out = try #require(P.apply(line, &stage))
        #expect(out == P.track(#""context":{"device":{"model":"X"}},"properties":{"plan":"pro","nested":{"keep":1}}"#))
        #expect(P.counter(stage, "fields_dropped") == 5)
        let paths = Set(stage.hitsByPath["drop"]?.keys.map { $0 } ?? [])
        #expect(paths == ["context.device.advertisingId", "properties.*_email", "**.password"])
    }

    @Test func allowKeepsOnlyTheListedPathsOfTheObjectsItNames() throws {
        var stage = try P.stage("{allow: [properties.plan, properties.cart.total], redact: false}")
        let line = P.track(#""properties":{"plan":"pro","note":"x","cart":{"total":5,"items":[1]},"extra":true},"traits":{"k":1}"#)
        let out = try #require(P.apply(line, &stage))
        // `traits` is not named by the list: left whole.
        #expect(out == P.track(#""properties":{"plan":"pro","cart":{"total":5}},"traits":{"k":1}"#))
        #expect(P.counter(stage, "fields_not_allowed") == 3)
    }

    // MARK: - IP truncation

    @Test(arguments: [
        ("203.0.113.45", "203.0.113.0"),
        ("2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001:db8:85a3::"),
        ("::ffff:203.0.113.45", "::ffff:203.0.113.0"),
        ("2001:db8::1", "2001:db8::"),
        (" 10.1.2.3 ", "10.1.2.0"),
    ])
    func ipAddressesKeepTheirNetworkPart(input: String, expected: String) throws {
        var stage = try P.stage()
        let out = try #require(P.apply(P.track(#""context":{"ip":"\#(input)"}"#), &stage))
        #expect(out == P.track(#""context":{"ip":"\#(expected)"}"#))
    }

    @Test func keptBitsAreConfigurable() throws {
        var stage = try P.stage("{ip: {v4_keep_bits: 16, v6_keep_bits: 64}}")
        #expect(P.apply(P.track(#""context":{"ip":"203.0.113.45"}"#), &stage) == P.track(#""context":{"ip":"203.0.0.0"}"#))
        #expect(P.apply(P.track(#""context":{"ip":"2001:db8:1:2:3:4:5:6"}"#), &stage) == P.track(#""context":{"ip":"2001:db8:1:2::"}"#))
    }

    @Test(arguments: [
        (128, 32, "2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001:db8:85a3:8d3:1319:8a2e:370:7348"),
        (120, 24, "2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001:db8:85a3:8d3:1319:8a2e:370:7300"),
        (68, 24, "2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001:db8:85a3:8d3:1000::"),
        (65, 24, "2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001:db8:85a3:8d3::"),
        (64, 24, "2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001:db8:85a3:8d3::"),
        (17, 24, "2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001::"),
        (0, 24, "2001:db8:85a3:8d3:1319:8a2e:370:7348", "::"),
        (48, 32, "::ffff:203.0.113.45", "::ffff:203.0.113.45"),
        (48, 20, "::ffff:203.0.113.45", "::ffff:203.0.112.0"),
        (48, 0, "::ffff:203.0.113.45", "::ffff:0.0.0.0"),
        (48, 1, "203.0.113.45", "128.0.0.0"),
        (48, 0, "203.0.113.45", "0.0.0.0"),
        (48, 32, "203.0.113.45", "203.0.113.45"),
    ])
    func everyNumberOfKeptBitsZeroesExactlyTheRest(v6: Int, v4: Int, input: String, expected: String) throws {
        var stage = try P.stage("{ip: {v4_keep_bits: \(v4), v6_keep_bits: \(v6)}}")
        #expect(P.apply(P.track(#""context":{"ip":"\#(input)"}"#), &stage) == P.track(#""context":{"ip":"\#(expected)"}"#))
    }

    @Test func aPlainIPPathReachesEveryElementOfAnArrayOnTheWay() throws {
        // `peers.ip` names the ip of each element of `peers`, as any field path does.
        var stage = try P.stage("{ip: {fields: [peers.ip]}}")
        let out = P.apply(P.track(#""peers":[{"ip":"203.0.113.45"},{"ip":"198.51.100.7"}]"#), &stage)
        #expect(out == P.track(#""peers":[{"ip":"203.0.113.0"},{"ip":"198.51.100.0"}]"#))
        #expect(P.counter(stage, "ip_truncated") == 2)
    }

    @Test func anIPFieldThatIsNotOneAddressIsRedactedInstead() throws {
        var stage = try P.stage()
        let out = P.apply(P.track(#""context":{"ip":"203.0.113.5, 198.51.100.7"}"#), &stage)
        #expect(out == P.track(#""context":{"ip":"[ip], [ip]"}"#))
        #expect(P.counter(stage, "ip_unparsed") == 1)
    }

    // MARK: - Pseudonymization

    @Test func pseudonymsAreTheHMACOfTheValue() throws {
        // RFC 4231 test case 1: key 0x0b × 20, data "Hi There".
        let settings = PrivacySettings.Pseudonymization(fields: [FieldPattern("userId")!], key: SymmetricKey(data: [UInt8](repeating: 0x0b, count: 20)),
                                                        keySource: "test")
        var pseudonymizer = Pseudonymizer(settings: settings)
        var out: [UInt8] = []
        let value = Array("Hi There".utf8)
        pseudonymizer.appendPseudonym(of: value.span, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    @Test func emailsAreTrimmedAndLowercasedBeforeHashing() throws {
        var stage = try P.stage("{pseudonymize: {fields: [traits.email, userId], key_env: TEST_KEY}}")
        let a = P.object(try #require(P.apply(P.track(#""userId":"u-1","traits":{"email":"A@Example.com "}"#), &stage)))
        let b = P.object(try #require(P.apply(P.track(#""userId":"u-1","traits":{"email":"a@example.com"}"#), &stage)))
        let emailA = (a["traits"] as? [String: Any])?["email"] as? String
        #expect(emailA == (b["traits"] as? [String: Any])?["email"] as? String)
        let expected = HMAC<SHA256>.authenticationCode(for: Array("a@example.com".utf8), using: SymmetricKey(data: Array(P.key.utf8)))
        #expect(emailA == expected.map { String(format: "%02x", $0) }.joined())
        #expect((a["userId"] as? String)?.count == 64 && a["userId"] as? String == b["userId"] as? String)
        #expect(P.counter(stage, "pseudonymized") == 4)
    }

    @Test func aPseudonymIsNotScannedAgain() throws {
        var stage = try P.stage("{pseudonymize: {fields: [properties.order], key_env: TEST_KEY}}")
        // Whatever digits the hex holds, no detector runs on it.
        let out = P.object(try #require(P.apply(P.track(#""properties":{"order":"4111111111111111"}"#), &stage)))
        let value = try #require((out["properties"] as? [String: Any])?["order"] as? String)
        #expect(value.count == 64 && value.allSatisfy(\.isHexDigit))
    }

    @Test func aMissingKeyIsAConfigurationError() {
        let errors = P.errors("{pseudonymize: {fields: [userId], key_env: NOT_SET}}")
        #expect(errors.count == 1 && errors[0].contains("NOT_SET") && errors[0].contains("not set"))
        #expect(P.errors("{pseudonymize: {fields: [userId]}}", environment: { _ in nil }).first?.contains("SLUICE_HMAC_KEY") == true)
        #expect(P.errors("{pseudonymize: {fields: [userId], key_env: X}}", environment: { _ in "short" }).first?.contains("at least 16") == true)
        #expect(P.errors("{pseudonymize: {fields: [userId], key_file: /nonexistent/key}}").first?.contains("cannot read") == true)
    }

    @Test func theKeyCanComeFromAFile() throws {
        let path = NSTemporaryDirectory() + "sluice-key-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: Data((P.key + "\n").utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var fromFile = try P.stage("{pseudonymize: {fields: [userId], key_file: \(path)}}")
        var fromEnv = try P.stage("{pseudonymize: {fields: [userId]}}")
        let line = P.track(#""userId":"someone""#)
        #expect(P.apply(line, &fromFile) == P.apply(line, &fromEnv))
    }

    // MARK: - Redaction

    @Test func detectorsReplaceWhatTheyFindInValuesAndKeys() throws {
        var stage = try P.stage()
        let line = P.track(#""properties":{"text":"mail jane@example.com or call +44 20 7946 0958","jane@example.com":true,"#
            + #""list":["card 4111 1111 1111 1111","DE89 3704 0044 0532 0130 00"],"url":"https://x.io/?e=bo%40example.org"}"#)
        let out = try #require(P.apply(line, &stage))
        #expect(out == P.track(#""properties":{"text":"mail [email] or call [phone]","[email]":true,"#
            + #""list":["card [card]","[iban]"],"url":"https://x.io/?e=[email]"}"#))
        let paths = stage.hitsByPath
        #expect(paths["email"] == ["properties.*": 2])
        #expect(paths["url_email"] == ["properties.*": 1])
        #expect(paths["card"] == ["properties.*": 1])
    }

    @Test func escapedTextIsDecodedBeforeScanning() throws {
        var stage = try P.stage()
        let out = P.apply(P.track(#""properties":{"text":"jane\u0040example.com said \"hi\""}"#), &stage)
        #expect(out == P.track(#""properties":{"text":"[email] said \"hi\""}"#))
    }

    @Test func aTokenIsEscapedOnceWhetherTheStringHadEscapesOrNot() throws {
        var stage = try P.stage(#"{redact: {tokens: {email: "\"e\""}}}"#)
        let out = P.apply(P.track(#""properties":{"a":"x\u0040y.com","b":"jane@example.com"}"#), &stage)
        #expect(out == P.track(#""properties":{"a":"\"e\"","b":"\"e\""}"#))
    }

    @Test func exemptFieldsAndStructuralValuesAreLeftAlone() throws {
        var stage = try P.stage()
        let line = #"{"type":"track","event":"tap","messageId":"4111111111111111","anonymousId":"203.0.113.45","#
            + #""timestamp":"2026-11-20T08:00:07.269Z","context":{"app":{"version":"1.2.3.4","build":"4155550123"},"#
            + #""os":{"version":"10.0.0.1"}}}"#
        #expect(P.apply(line, &stage) == line)
        var custom = try P.stage("{redact: {exempt: []}}")
        let out = P.object(try #require(P.apply(line, &custom)))
        #expect(out["messageId"] as? String == "[card]" && out["anonymousId"] as? String == "[ip]")
    }

    @Test func detectionCanBeRestrictedToPathsAndDetectors() throws {
        var stage = try P.stage("{redact: {detectors: [email], paths: [properties.text]}}")
        let line = P.track(#""properties":{"text":"a@example.com +1 415 555 0123","other":"b@example.com"}"#)
        #expect(P.apply(line, &stage) == P.track(#""properties":{"text":"[email] +1 415 555 0123","other":"b@example.com"}"#))
        var wildcard = try P.stage(#"{redact: {paths: ["properties.*"], keys: false}}"#)
        let keyed = P.track(#""properties":{"a@example.com":"c@example.com"},"traits":{"t":"d@example.com"}"#)
        #expect(P.apply(keyed, &wildcard) == P.track(#""properties":{"a@example.com":"[email]"},"traits":{"t":"d@example.com"}"#))
    }

    @Test func tokensAndCustomPatternsAreConfigurable() throws {
        var stage = try P.stage(##"{redact: {tokens: {email: "<EMAIL>"}}, patterns: {order_ref: "ORD-[0-9]{8}", badge: {match: "\\bB[0-9]{3}\\b", token: "#"}}}"##)
        let out = P.apply(P.track(#""properties":{"text":"ORD-12345678 by x@example.com, badge B123 not AB1234"}"#), &stage)
        #expect(out == P.track(#""properties":{"text":"[order_ref] by <EMAIL>, badge # not AB1234"}"#))
        #expect(P.counter(stage, "redacted_order_ref") == 1 && P.counter(stage, "redacted_badge") == 1)
    }

    @Test func anEventWithoutPersonalDataIsPassedOnUncopied() throws {
        var stage = try P.stage()
        let line = P.track(#""properties":{"plan":"pro","count":3}"#)
        let event = try Event.decode(JSONDocument.parse(Array(line.utf8)), origin: Origin(source: 0, line: 1)).get()
        var output = StageOutput()
        stage.process(event, into: &output)
        let out = try #require(output.events.first)
        let same = event.document.withLineBytes { a in out.document.withLineBytes { $0.baseAddress == a.baseAddress } }
        #expect(same && !out.document.isModified)
        #expect(P.counter(stage, "events_changed") == 0)
    }

    @Test func aRedactedEventNameRoutesByItsNewName() throws {
        var stage = try P.stage()
        let outcome = StageCase.run([P.track(event: "sent to jane@example.com")], through: &stage)
        #expect(outcome.events[0].nameString == "sent to [email]")
    }

    // MARK: - Configuration

    @Test func privacyWithNoKeysTurnsOnEverythingButPseudonyms() throws {
        let stage = try P.stage()
        #expect(stage.settings.consent != nil && stage.settings.ip != nil && stage.settings.pseudonymize == nil)
        #expect(stage.settings.redact?.detectors == Set(PIIDetector.allCases))
    }

    @Test func badSettingsAreReportedAllAtOnce() {
        let errors = P.errors(#"{redact: [email, fone], ip: {v4_keep_bits: 40}, drop: ["a..b"], patterns: {x: "ORD-(", y: "a*"}, colour: 1}"#)
        #expect(errors.count == 6, "\(errors)")
        #expect(errors.contains { $0.contains("unknown detector 'fone'") && $0.contains("did you mean 'phone'") })
        #expect(errors.contains { $0.contains("unknown key 'colour'") })
        #expect(errors.contains { $0.contains("can match nothing") })
        #expect(P.errors(#"{allow: ["*.plan"]}"#).first?.contains("starts with the object it governs") == true)
    }
}
