import Testing
@testable import Sluice

@Suite struct EnvironmentSubstitutionTests {
    static let environment: @Sendable (String) -> String? = { ["ENV": "prod", "EMPTY": "", "TOKEN": "t0k3n", "MAX": "250"][$0] }

    private func substitute(_ text: String) -> String? {
        EnvironmentSubstitution.substitute(text, environment: Self.environment).text
    }

    @Test(arguments: [
        ("${ENV}", "prod"), ("data/${ENV}/{date}", "data/prod/{date}"), ("${UNSET:-dev}", "dev"), ("${EMPTY:-dev}", "dev"),
        ("${EMPTY}", ""), ("${ENV:-dev}", "prod"), ("$$", "$"), ("$${ENV}", "${ENV}"), ("cost: $5", "cost: $5"),
        ("$token", "$token"), ("^a$", "^a$"), ("${UNSET:-}", ""), ("${UNSET:-a:-b}", "a:-b"), ("${ENV}${MAX}", "prod250"),
    ])
    func referencesAreReplacedAndOtherDollarsKept(_ written: String, _ resolved: String) {
        #expect(substitute(written) == resolved)
    }

    @Test(arguments: ["${UNSET}", "${", "${ENV", "${}", "${1X}", "${A-B}", "x ${UNSET} y"])
    func unsetVariablesWithoutADefaultAndMalformedReferencesAreProblems(_ written: String) {
        let (text, problem) = EnvironmentSubstitution.substitute(written, environment: Self.environment)
        #expect(text == nil)
        #expect(problem?.isEmpty == false)
    }

    @Test func everyValueOfThePipelineFileIsSubstitutedAndReadAsIfWrittenSo() throws {
        let configuration = try PipelineConfiguration.load(yaml: """
        version: 1
        stages:
          - timed:
              max_open: ${MAX}
        destinations:
          archive: {type: ndjson, path: "${ENV}/{date}/a-{seq}.ndjson.gz"}
          mixpanel:
            type: mixpanel
            token: ${TOKEN}
            path: "mp-${REGION:-eu}/{seq}.ndjson.gz"
        """, file: "p.yaml", environment: Self.environment)
        #expect(configuration.destinations[0].target == .files(try PathTemplate("prod/{date}/a-{seq}.ndjson.gz")))
        #expect(configuration.substitutions.map(\.description) == [
            #"p.yaml:4:17: stages[0].timed.max_open = "250" from ${MAX}"#,
            #"p.yaml:6:33: destinations.archive.path = "prod/{date}/a-{seq}.ndjson.gz" from ${ENV}/{date}/a-{seq}.ndjson.gz"#,
            "p.yaml:9:12: destinations.mixpanel.token = (secret, not shown) from ${TOKEN}",
            #"p.yaml:10:11: destinations.mixpanel.path = "mp-eu/{seq}.ndjson.gz" from mp-${REGION:-eu}/{seq}.ndjson.gz"#,
        ])
        #expect(!configuration.substitutions.map(\.description).joined().contains("t0k3n"))
    }

    @Test func anUnsetVariableIsAnErrorAtItsValuesPlace() {
        #expect(throws: ConfigurationError.self) {
            try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n  a: {type: ndjson, path: \"${NOPE}/{seq}.gz\"}\n",
                                           file: "p.yaml", environment: Self.environment)
        }
        do {
            _ = try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n  a: {type: ndjson, path: \"${NOPE}/{seq}.gz\"}\n",
                                               file: "p.yaml", environment: Self.environment)
        } catch {
            #expect(error.description == "p.yaml:3:27: destinations.a.path: environment variable NOPE is not set: "
                + "set it, or give a default: ${NOPE:-value}")
        }
    }

    @Test(arguments: ["token", "api_secret", "api_key", "key_env", "password", "write_key", "app_token", "credentials"])
    func keysNamingSecretsAreSecret(_ key: String) {
        #expect(EnvironmentSubstitution.isSecret(key: key))
    }

    @Test(arguments: ["path", "measurement_id", "type", "max_open", "events"])
    func otherKeysAreShown(_ key: String) {
        #expect(!EnvironmentSubstitution.isSecret(key: key))
    }
}
