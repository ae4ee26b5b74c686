@testable import Sluice
import Testing

/// The audit's paths come from the settings and the event schema, never from keys in the data.
@Suite struct PrivacyAuditLabelTests {
    typealias P = PrivacyCase

    @Test func keysFromTheDataAreFoldedSoTheLabelsAreBoundedByTheSettings() throws {
        var stage = try P.stage()
        var lines: [String] = []
        for index in 0..<50 {
            lines.append(P.track(#""properties":{"k\#(index)\"}":"a\#(index)@example.com","u\#(index)@example.com":1,"#
                + #""deep":{"x\#(index)":{"y":"b@example.com"}}},"traits":{"email":"c@example.com"},"context":{"ip":"1.2.3.4"}"#))
        }
        _ = StageCase.run(lines, through: &stage)
        let audit = stage.hitsByPath
        #expect(audit["email"] == ["properties.*": 100, "properties.**": 50, "traits.email": 50])
        #expect(audit["truncate_ip"] == ["context.ip": 50])
    }

    @Test func pathsNamedInTheSettingsAreKeptAndPatternRulesCountUnderTheirPattern() throws {
        var stage = try P.stage(#"{redact: {paths: ["**", properties.text, "properties.*_note"]}, drop: ["properties.*_password"]}"#)
        let line = P.track(#""properties":{"text":"a@example.com","my_note":"b@example.com","other":"c@example.com","#
            + #""a_password":1,"b_password":2}"#)
        _ = P.apply(line, &stage)
        #expect(stage.hitsByPath["email"] == ["properties.text": 1, "properties.*_note": 1, "properties.*": 1])
        #expect(stage.hitsByPath["drop"] == ["properties.*_password": 2])
    }
}
