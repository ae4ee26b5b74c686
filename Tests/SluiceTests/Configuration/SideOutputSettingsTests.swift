import Testing
@testable import Sluice

/// A destination's side outputs in the pipeline file: `outputs:`, their default
/// paths and rotations, and the checks every file output goes through.
@Suite struct SideOutputSettingsTests {
    private func load(_ destinations: String, rejects: String = "") throws -> PipelineConfiguration {
        try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n" + destinations + rejects, file: "p.yaml")
    }

    private func errors(_ destinations: String) -> [String] {
        do {
            _ = try load(destinations)
            return []
        } catch let error as ConfigurationError {
            return error.diagnostics.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func eachSideOutputHasItsOwnFolderUnderTheDestinationsAndTheRequestLimitsOfItsEndpoint() throws {
        let configuration = try load("  mixpanel: {type: mixpanel}\n  amplitude: {type: amplitude}\n  ga4: {type: ga4}\n")
        let mixpanel = configuration.destinations[0].sideOutputs
        #expect(mixpanel.map(\.kind.name) == ["profiles", "groups"])
        #expect(mixpanel.map(\.template.description) == ["{dest}/profiles/{date}/{dest}-profiles-{hour}-{seq}.ndjson.gz",
                                                          "{dest}/groups/{date}/{dest}-groups-{hour}-{seq}.ndjson.gz"])
        #expect(mixpanel.map(\.rotation.maxEvents) == [200, 200])
        let amplitude = configuration.destinations[1].sideOutputs
        #expect(amplitude.map(\.kind.name) == ["groups", "user_mappings"])
        #expect(amplitude.map(\.rotation.maxEvents) == [1024, 2000])
        #expect(amplitude.map(\.rotation.maxBytes) == [998_976, 998_976])
        #expect(amplitude[0].kind.perFileLimit?.max == 1024)
        #expect(configuration.destinations[2].sideOutputs.isEmpty)
    }

    @Test func aDestinationWhosePathHasShardGetsShardInItsSideOutputsDefaultPaths() throws {
        let configuration = try load("  mixpanel: {type: mixpanel, path: \"{dest}/{date}/{dest}-{shard}-{hour}-{seq}.ndjson.gz\"}\n")
        #expect(configuration.destinations[0].sideOutputs[0].template.description
            == "{dest}/profiles/{date}/{dest}-profiles-{shard}-{hour}-{seq}.ndjson.gz")
        #expect(configuration.shardLint(shard: try ShardID("3")).filter { $0.message.contains("profiles") || $0.message.contains("groups") }.isEmpty)
    }

    @Test func outputsSetsASideOutputsPathRotationAndLevel() throws {
        let configuration = try load("""
          mixpanel:
            type: mixpanel
            gzip_level: 9
            outputs:
              profiles: {path: "engage/{date}/p-{seq}.ndjson.gz", rotate: {max_events: 50, max_age: 10s}, gzip_level: 1}

        """)
        let sides = configuration.destinations[0].sideOutputs
        #expect(sides[0].template.description == "engage/{date}/p-{seq}.ndjson.gz")
        #expect(sides[0].rotation.maxEvents == 50 && sides[0].rotation.maxAge == .seconds(10))
        #expect(sides[0].rotation.maxBytes == 2_000_000)
        #expect(sides[0].gzipLevel == 1 && sides[1].gzipLevel == 9)
        #expect(sides[0].pathLocation.line == 7)
    }

    @Test func anUnknownSideOutputOrOneOnADestinationWithoutThemIsAnError() {
        #expect(errors("  mixpanel: {type: mixpanel, outputs: {profile: {rotate: {max_events: 5}}}}\n").contains {
            $0.contains("unknown key 'profile'") && $0.contains("profiles")
        })
        #expect(errors("  ga4: {type: ga4, outputs: {profiles: {}}}\n").contains {
            $0.contains("destinations.ga4.outputs: a destination of type ga4 writes no file set besides its events")
        })
        #expect(errors("  mixpanel: {type: mixpanel, outputs: {profiles: {path: \"-\"}}}\n").contains {
            $0.contains("destinations.mixpanel.outputs.profiles.path cannot be stdout")
        })
        #expect(errors("  mixpanel: {type: mixpanel, outputs: {groups: {path: \"g/{date}.ndjson.gz\"}}}\n").contains {
            $0.contains("destinations.mixpanel.outputs.groups.path must contain {seq}")
        })
    }

    @Test func aSideOutputThatCanWriteAnotherOutputsFilesIsRefused() {
        let found = errors("""
          mixpanel: {type: mixpanel}
          archive: {type: ndjson, path: "mixpanel/profiles/{date}/mixpanel-profiles-{hour}-{seq}.ndjson.gz"}

        """)
        #expect(found == ["p.yaml:4:33: destination 'archive' can write the same files as the profiles of destination 'mixpanel' "
            + "(path \"mixpanel/profiles/{date}/mixpanel-profiles-{hour}-{seq}.ndjson.gz\" and "
            + "\"{dest}/profiles/{date}/{dest}-profiles-{hour}-{seq}.ndjson.gz\" can give the same name); give each output its own path, e.g. with {dest}"])
        // Mixpanel's and Amplitude's groups are apart: {dest} differs.
        #expect(errors("  mixpanel: {type: mixpanel}\n  amplitude: {type: amplitude}\n").isEmpty)
    }

    @Test func aShardedRunRefusesASideOutputPathWithoutShard() throws {
        let configuration = try load("  mixpanel: {type: mixpanel, path: \"{dest}/{shard}-{seq}.ndjson.gz\", outputs: {groups: {path: \"g/{seq}.ndjson.gz\"}}}\n",
                                     rejects: "rejects: {path: \"rejects/{shard}-{seq}.ndjson.gz\"}\n")
        let found = configuration.shardLint(shard: try ShardID("3"))
        #expect(found.map(\.severity) == [.error])
        #expect(found.first?.message.hasPrefix("destinations.mixpanel.outputs.groups.path \"g/{seq}.ndjson.gz\" has no {shard}") == true)
    }
}
