import Testing
@testable import Sluice
@testable import SluiceJSON

/// Adjust `att_status` and `tracking_enabled` from `context.device`.
///
/// [s2s-guide] dev.adjust.com/en/api/s2s-api/s2s-developer-guide, "Device IDs and tracking statuses":
/// `params["att_status"] = String(attStatus.rawValue)`, else
/// `params["tracking_enabled"] = trackingEnabled ? "1" : "0"`; "Include ATT status if available,
/// otherwise include tracking enabled status, never both". [att] Apple's ATTrackingManager.h:
/// NotDetermined = 0, Restricted = 1, Denied = 2, Authorized = 3. [segment] segment-docs
/// spec/common.md: `context.device.adTrackingEnabled`, a boolean.
@Suite struct AdjustTrackingStatusTests {
    private let adjust = "{type: adjust, app_token: 4w565xzmb54d, tokens: {purchase_completed: f0ob4r}}"

    /// The `att_status` and `tracking_enabled` written for this `context.device`, and the destination.
    private func status(_ device: String, os: String = "iOS") throws -> (att: String?, tracking: String?, destination: DestinationHarness) {
        var destination = try DestinationHarness(adjust)
        let line = try destination.encode(#"{"type":"track","event":"purchase_completed","messageId":"m-1","timestamp":"2026-11-20T08:00:07.269Z","anonymousId":"dev-000001","context":{"os":{"name":"\#(os)"},"device":\#(device)},"properties":{}}"#).get()
        let document = try JSONDocument.parse(Array(line.utf8))
        func raw(_ key: String) -> String? { document.member(key).map { String(decoding: document.rawBytes($0), as: UTF8.self) } }
        return (raw("att_status"), raw("tracking_enabled"), destination)
    }

    /// [att] the four statuses, [s2s-guide] sent as their raw value.
    @Test(arguments: [(0, "0"), (1, "1"), (2, "2"), (3, "3")])
    func attTrackingStatusBecomesAttStatus(_ value: Int, _ expected: String) throws {
        let result = try status(#"{"advertisingId":"29DDE430-CE81-4F00-A50C-689595AAD142","attTrackingStatus":\#(value)}"#)
        #expect(result.att == expected && result.tracking == nil)
    }

    /// [s2s-guide] "never both": with an ATT status, `adTrackingEnabled` is not sent.
    @Test(arguments: ["true", "false"])
    func attStatusWinsOverTrackingEnabledNeverBoth(_ enabled: String) throws {
        let result = try status(#"{"attTrackingStatus":2,"adTrackingEnabled":\#(enabled)}"#)
        #expect(result.att == "2" && result.tracking == nil)
    }

    /// [s2s-guide] without an ATT status (iOS before 14.5, Android): `tracking_enabled` 1 or 0.
    @Test(arguments: [("true", "1", "iOS"), ("false", "0", "iOS"), ("true", "1", "Android"), ("false", "0", "Android")])
    func adTrackingEnabledBecomesTrackingEnabledOneOrZero(_ enabled: String, _ expected: String, _ os: String) throws {
        let result = try status(#"{"adTrackingEnabled":\#(enabled)}"#, os: os)
        #expect(result.tracking == expected && result.att == nil)
    }

    /// A status outside [att]'s 0-3, or not an integer, is no status: counted, and
    /// `tracking_enabled` is sent instead when the event has it.
    @Test(arguments: ["4", "-1", "3.0", "1e0", #""3""#, #""authorized""#, "true", "{}"])
    func anInvalidAttStatusIsCountedAndLeftOut(_ value: String) throws {
        var result = try status(#"{"attTrackingStatus":\#(value)}"#)
        #expect(result.att == nil && result.tracking == nil)
        #expect(result.destination.change("att_status_invalid") == 1)
        result = try status(#"{"attTrackingStatus":\#(value),"adTrackingEnabled":false}"#)
        #expect(result.att == nil && result.tracking == "0")
    }

    /// [segment] `adTrackingEnabled` is a boolean; anything else is counted and left out.
    @Test(arguments: [#""true""#, "1", "0", #""yes""#, "[]"])
    func anInvalidAdTrackingEnabledIsCountedAndLeftOut(_ value: String) throws {
        let result = try status(#"{"adTrackingEnabled":\#(value)}"#)
        #expect(result.att == nil && result.tracking == nil)
        #expect(result.destination.change("tracking_enabled_invalid") == 1)
    }

    /// Empty strings are omitted, not sent; `null` too; neither is counted.
    @Test(arguments: [#"{"attTrackingStatus":"","adTrackingEnabled":""}"#, #"{"attTrackingStatus":null,"adTrackingEnabled":null}"#, "{}"])
    func emptyOrNullStatusesAreOmittedNotSent(_ device: String) throws {
        let result = try status(device)
        #expect(result.att == nil && result.tracking == nil)
        #expect(result.destination.change("att_status_invalid") == 0 && result.destination.change("tracking_enabled_invalid") == 0)
    }

    @Test func anEmptyAttStatusFallsBackToTrackingEnabled() throws {
        let result = try status(#"{"attTrackingStatus":"","adTrackingEnabled":true}"#)
        #expect(result.att == nil && result.tracking == "1")
    }
}
