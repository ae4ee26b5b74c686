import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct PathTemplateTests {
    @Test func placeholdersAreFilledFromEventTimeInUTC() throws {
        let template = try PathTemplate("{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz")
        let time = EventTime.parseISO8601("2026-11-20T23:30:00-02:00")!
        let key = template.key(dest: "archive", time: time)
        #expect(key == "archive/2026-11-21/archive-01-{seq}.ndjson.gz")
        #expect(PathTemplate.path(key: key, seq: 7) == "archive/2026-11-21/archive-01-0007.ndjson.gz")
        #expect(PathTemplate.path(key: key, seq: 12345) == "archive/2026-11-21/archive-01-12345.ndjson.gz")
    }

    @Test(arguments: [
        ("", TemplateError.empty),
        ("{dest", .unclosedBrace),
        ("dest}", .strayBrace),
        ("../{seq}.gz", .parentDirectory),
        ("a/../{seq}.gz", .parentDirectory),
        ("{dest}/", .endsWithSlash),
        ("{user}/{seq}", .unknownPlaceholder("user")),
        ("{dest}/a\u{0}b-{seq}.gz", .controlCharacter(0)),
        ("{dest}\n{seq}.gz", .controlCharacter(0x0A)),
        ("{dest}/\u{7F}-{seq}.gz", .controlCharacter(0x7F)),
    ])
    func badTemplatesAreRefused(_ text: String, _ expected: TemplateError) {
        #expect(throws: expected) { try PathTemplate(text) }
    }

    @Test func shardIsFilledWithTheRunsShardAndIsAllWithoutOne() throws {
        let template = try PathTemplate("{dest}/{date}/{dest}-{shard}-{hour}-{seq}.ndjson.gz")
        let time = EventTime.parseISO8601("2026-11-20T08:30:00Z")!
        #expect(template.usesShard)
        #expect(template.filling(shard: try ShardID("eu-3")).key(dest: "a", time: time) == "a/2026-11-20/a-eu-3-08-{seq}.ndjson.gz")
        #expect(template.filling(shard: .unsharded).key(dest: "a", time: time) == "a/2026-11-20/a-all-08-{seq}.ndjson.gz")
        #expect(template.key(dest: "a", time: time) == "a/2026-11-20/a-all-08-{seq}.ndjson.gz")
        #expect(template.filling(shard: try ShardID("7")).description == template.description)
        #expect(try !PathTemplate("{dest}/{seq}").usesShard)
    }

    @Test func theUnknownPlaceholderMessageListsShard() {
        #expect(TemplateError.unknownPlaceholder("user").description
            == "unknown placeholder {user}; known: {dest}, {shard}, {date}, {hour}, {seq}")
    }

    @Test func hourBucketsSplitAtTheHourIncludingBeforeTheEpoch() {
        let a = EventTime.parseISO8601("2026-11-20T08:59:59.999Z")!
        let b = EventTime.parseISO8601("2026-11-20T09:00:00Z")!
        #expect(PathTemplate.hourBucket(a) + 1 == PathTemplate.hourBucket(b))
        #expect(PathTemplate.hourBucket(EventTime(microseconds: -1)) == -1)
    }
}

/// Which files a template names, as `sluice send` finds a destination's files.
@Suite struct PathTemplateMatchTests {
    @Test func theDefaultTemplateNamesItsDestinationsFilesOnly() throws {
        let template = try PathTemplate(PipelineConfiguration.defaultPath)
        #expect(template.matches("mixpanel/2026-11-20/mixpanel-08-0000.ndjson.gz", dest: "mixpanel"))
        #expect(template.matches("mixpanel/2026-11-20/mixpanel-23-10342.ndjson.gz", dest: "mixpanel"))
        #expect(!template.matches("mixpanel/2026-11-20/mixpanel-08-0000.ndjson.gz.part", dest: "mixpanel"))
        #expect(!template.matches("mixpanel/profiles/2026-11-20/mixpanel-profiles-08-0000.ndjson.gz", dest: "mixpanel"))
        #expect(!template.matches("amplitude/2026-11-20/amplitude-08-0000.ndjson.gz", dest: "mixpanel"))
        #expect(!template.matches("mixpanel/2026-11-20/mixpanel-08-000.ndjson.gz", dest: "mixpanel"))
    }

    @Test func shardAndSeqAreReadBackWhereverTheyAre() throws {
        let template = try PathTemplate("{dest}/{shard}/{date}-{hour}/part-{seq}1.gz")
        #expect(template.matches("mp/shard-7/2026-01-02-03/part-00121.gz", dest: "mp"))
        #expect(!template.matches("mp/shard/7/2026-01-02-03/part-00121.gz", dest: "mp"))
    }
}
