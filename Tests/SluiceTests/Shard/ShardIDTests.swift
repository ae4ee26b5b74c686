import Testing
@testable import Sluice

@Suite struct ShardIDTests {
    @Test(arguments: ["0", "7", "07", "1048575", "eu-3", "a_b", "A-z_09", "day-2026-11-20-p3", String(repeating: "x", count: 64)])
    func aNameOfSafeCharactersIsAShard(_ name: String) throws {
        #expect(try ShardID(name).name == name)
    }

    @Test(arguments: ["", "-1", "a b", "a/b", ".", "..", "a.b", "ü", "a\n", String(repeating: "x", count: 65)])
    func anythingElseIsAUsageError(_ name: String) {
        #expect(throws: UsageError.self) { try ShardID(name) }
    }

    @Test func theOptionWinsOverTheEnvironmentWhichCountsWhenSetAndNotEmpty() throws {
        let environment = { (name: String) -> String? in name == "SLUICE_SHARD" ? "5" : nil }
        #expect(try ShardID.resolve(option: "3", environment: environment)?.name == "3")
        #expect(try ShardID.resolve(option: nil, environment: environment)?.name == "5")
        #expect(try ShardID.resolve(option: nil, environment: { _ in "" }) == nil)
        #expect(try ShardID.resolve(option: nil, environment: { _ in nil }) == nil)
    }

    @Test func aBadNameSaysWhereItCameFrom() {
        #expect(throws: UsageError.self) { try ShardID.resolve(option: "a/b", environment: { _ in nil }) }
        do {
            _ = try ShardID.resolve(option: nil, environment: { _ in "x y" })
            Issue.record("accepted 'x y'")
        } catch {
            #expect(error.description.hasPrefix("SLUICE_SHARD=x y: 'x y' is not a shard name"))
        }
        do {
            _ = try ShardID.resolve(option: "a/b", environment: { _ in "5" })
            Issue.record("accepted 'a/b'")
        } catch {
            #expect(error.description.hasPrefix("--shard 'a/b' is not a shard name"))
        }
    }

    @Test func withoutAShardTheNameIsAll() {
        #expect(ShardID.unsharded.name == "all")
    }
}
