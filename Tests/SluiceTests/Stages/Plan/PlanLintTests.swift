@testable import Sluice
import Testing

@Suite struct PlanLintTests {
    private func lint(_ yaml: String) throws -> [String] {
        try PipelineConfiguration.load(yaml: yaml, file: "p.yaml").lint().map(\.description)
    }

    @Test func aGA4InvalidNameWithoutARenameIsAWarningAtTheEventsLine() throws {
        let found = try lint("""
        version: 1
        stages:
          - plan:
              events:
                Movie Tapped: {}
                movie_tapped: {}
        destinations:
          analytics: {type: ga4}
        """)
        #expect(found == [#"p.yaml:5:9: warning: destination 'analytics' (ga4): event 'Movie Tapped' is not a valid GA4 event name and would be sent as 'Movie_Tapped'; add `rename: {"Movie Tapped": Movie_Tapped}` to the destination to choose the name"#])
    }

    @Test func aPlannedEventNamedLikeMixpanelsOrAmplitudesOwnIsAWarningOrWithNamesRejectAnError() throws {
        let found = try PipelineConfiguration.load(yaml: """
        version: 1
        stages:
          - plan: {events: {"$merge": {}, "[Amplitude] Revenue": {}, movie_tapped: {}}}
        destinations:
          mixpanel: {type: mixpanel}
          amplitude: {type: amplitude, names: reject}
        """, file: "p.yaml").lint()
        // `$merge` is Mixpanel's (renamed) and, as a `$` type, Amplitude's (refused); `[Amplitude] Revenue` Amplitude's only.
        #expect(found.map(\.severity).sorted { "\($0)" < "\($1)" } == [.error, .error, .warning])
        let texts = found.map(\.description)
        #expect(texts.contains { $0.contains("destination 'mixpanel' (mixpanel): event '$merge' is named like Mixpanel's own events and would be sent as 'app_$merge'") })
        #expect(texts.contains { $0.contains("destination 'amplitude' (amplitude): event '$merge' is named like Amplitude's own events; with `names: reject` it would be refused (reserved_event_name)") })
        #expect(texts.contains { $0.contains("destination 'amplitude' (amplitude): event '[Amplitude] Revenue' is named like Amplitude's own events; with `names: reject` it would be refused (reserved_event_name)") })
    }

    @Test func aRenameToAValidNameSilencesItAndOneToAnInvalidNameDoesNot() throws {
        let found = try lint("""
        version: 1
        stages:
          - plan: {events: {Movie Tapped: {}, first_open: {}}}
        destinations:
          ga4: {type: ga4, rename: {"Movie Tapped": movie_tapped, first_open: "session_start"}}
        """)
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("p.yaml:3:39: warning: destination 'ga4' (ga4): event 'first_open', renamed to 'session_start', is not a valid GA4 event name and would be sent as 'app_session_start'"))
    }

    @Test func withNamesRejectTheInvalidNameIsAnError() throws {
        let found = try PipelineConfiguration.load(yaml: """
        version: 1
        stages:
          - plan: {events: {2fa_enabled: {}}}
        destinations:
          ga4: {type: ga4, names: reject}
        """, file: "p.yaml").lint()
        #expect(found.map(\.severity) == [.error])
        #expect(found.first?.line == 3)
        #expect(found.first?.column == 21)
        #expect(found.first?.message.contains("would be refused (invalid_event_name)") == true)
    }

    @Test func ga4ParamFindingsPointAtTheProperty() throws {
        let found = try lint("""
        version: 1
        stages:
          - plan:
              events:
                search_submitted:
                  properties:
                    query: string
                    Result Count: integer
                    filters: array
                    session_id: string
        destinations:
          ga4: {type: ga4}
        """)
        #expect(found.count == 3)
        #expect(found[0].hasPrefix("p.yaml:8:13: warning: destination 'ga4' (ga4): property 'Result Count' is not a valid GA4 param name and would be sent as 'Result_Count'"))
        #expect(found[1].hasPrefix("p.yaml:9:13: warning: destination 'ga4' (ga4): property 'filters' is an array"))
        #expect(found[2].hasPrefix("p.yaml:10:13: warning: destination 'ga4' (ga4): property 'session_id' would be left out"))
    }

    @Test func anAdjustRoutedEventWithoutATokenIsReportedAndOneNotRoutedThereIsNot() throws {
        let found = try lint("""
        version: 1
        stages:
          - plan:
              events:
                purchase_completed: {properties: {revenue: number, currency: string}}
                movie_tapped: {}
                debug_ping: {}
              screens: {Home: {}}
        destinations:
          adjust:
            type: adjust
            events: ["*", "!debug_*"]
            app_token: 4w565xzmb54d
            tokens: {purchase_completed: f0ob4r}
        """)
        #expect(found == [#"p.yaml:6:9: warning: destination 'adjust' (adjust): event 'movie_tapped' has no Adjust event token in `tokens:`, so Adjust would not get it; add its token, or leave it out of the destination's `events:`"#])
    }

    @Test func anAdjustRenameToANameWithoutATokenIsAWarning() throws {
        // `rename:` comes before the token table: the event would not be sent (not_taken, unsupported_event).
        let found = try PipelineConfiguration.load(yaml: """
        version: 1
        stages:
          - plan: {events: {purchase_completed: {properties: {price: number}}}}
        destinations:
          adjust: {type: adjust, app_token: 4w565xzmb54d, tokens: {purchase_completed: f0ob4r}, rename: {purchase_completed: purchase}}
        """, file: "p.yaml").lint()
        #expect(found.map(\.severity) == [.warning])
        #expect(found.first?.message.contains("is renamed to 'purchase', which has no token") == true)
        #expect(found.first?.message.contains("key the token by the new name") == true)
    }

    @Test func anAdjustEventWithRevenueButNoCurrencyIsAWarning() throws {
        let found = try PipelineConfiguration.load(yaml: """
        version: 1
        stages:
          - plan: {events: {purchase_completed: {properties: {price: number}}}}
        destinations:
          adjust: {type: adjust, app_token: 4w565xzmb54d, tokens: {purchase: f0ob4r}, rename: {purchase_completed: purchase}}
        """, file: "p.yaml").lint()
        #expect(found.map(\.severity) == [.warning])
        #expect(found.first?.message.contains("property 'price' is planned without 'currency'") == true)
        #expect(found.first?.column == 55)
    }

    @Test func mixpanelReservedPropertiesAreReportedAndDestinationsWithoutRulesSayNothing() throws {
        let found = try lint("""
        version: 1
        stages:
          - plan: {events: {a: {properties: {time: integer, distinct_id: string, ok: string}}}}
        destinations:
          mixpanel: {type: mixpanel}
          amplitude: {type: amplitude}
          segment: {type: segment}
          archive: {type: ndjson}
        """)
        #expect(found.count == 2)
        #expect(found[0].hasPrefix("p.yaml:3:38: warning: destination 'mixpanel' (mixpanel): property 'time' would be left out"))
        #expect(found[1].hasPrefix("p.yaml:3:53: warning: destination 'mixpanel' (mixpanel): property 'distinct_id' would be left out"))
    }

    @Test func aPipelineWithoutAPlanHasNothingToLint() throws {
        #expect(try lint("version: 1\ndestinations:\n  ga4: {type: ga4}\n").isEmpty)
    }
}
