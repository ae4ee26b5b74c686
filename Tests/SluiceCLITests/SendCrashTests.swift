import Foundation
import ProviderEmulator
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `sluice send` killed (`kill -9`) or stopped (SIGTERM) in the middle, then run again.
@Suite struct SendCrashTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func killedAtRandomMomentsThenRerunDeliversEverythingDuplicatingOnlyWithTheSameInsertID(seed: UInt64) throws {
        let fixture = try SendFixture(events: 6000, maxEvents: 150,
                                      send: "{credentials_env: MIXPANEL_SECRET, concurrency: 3}")
        let records = fixture.records()
        // Slow answers, so requests are in flight when the kill comes.
        fixture.emulator.delayEveryRequest(milliseconds: 15)
        var random = TestRandom(state: seed)
        let files = gunzipFiles(fixture.directory, under: "out/mixpanel/").count
        for _ in 0..<3 {
            let target = fixture.emulator.requests + 1 + random.below(files / 4)
            let sending = try fixture.start()
            // The kill lands wherever sending is when the emulator has seen `target` requests (or sending ended).
            _ = waitUntil(timeout: 60) { fixture.emulator.requests >= target || !sending.process.isRunning }
            sending.signal(SIGKILL)
            _ = sending.waitForExit(timeout: 10)
        }
        fixture.emulator.delayEveryRequest(milliseconds: 0)
        let rerun = try fixture.send(["--stats", "stats.json"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let imported = fixture.emulator.imported
        // Complete: every record arrived.
        #expect(Set(imported.map(\.line)) == Set(records))
        // A record that arrived twice is the same record (same $insert_id, same bytes): Mixpanel keeps it once.
        var byID: [String: String] = [:]
        for record in imported {
            if let earlier = byID[record.insertID] { #expect(earlier == record.line) }
            byID[record.insertID] = record.line
        }
        #expect(byID.count == records.count)
        #expect(gunzipFiles(fixture.directory, under: "out/mixpanel/").isEmpty)
    }

    @Test func sigtermFinishesTheRequestsInFlightWritesTheLedgerAndExits143() throws {
        let fixture = try SendFixture(events: 4000, maxEvents: 500,
                                      send: "{credentials_env: MIXPANEL_SECRET, concurrency: 2}")
        let records = fixture.records()
        fixture.emulator.delayEveryRequest(milliseconds: 400)
        let sending = try fixture.start(["--stats", "stats.json"])
        #expect(waitUntil(timeout: 30) { fixture.emulator.requests >= 1 })
        sending.signal(SIGTERM)
        let status = sending.waitForExit(timeout: 30)
        #expect(status == 143, "\(sending.stderr)")
        // What the emulator imported was acknowledged and is in the ledger: nothing is sent twice.
        let importedBefore = fixture.emulator.imported.count
        #expect(importedBefore > 0)
        #expect(importedBefore < records.count)
        #expect(fixture.stats()["sent"] as? Int == importedBefore)
        #expect(fixture.stats()["unsent"] as? Int == (fixture.stats()["records"] as? Int ?? 0) - importedBefore)
        fixture.emulator.delayEveryRequest(milliseconds: 0)
        let rerun = try fixture.send()
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(fixture.emulator.imported.map(\.line).sorted() == records.sorted())
    }

    /// SIGTERM cuts off a request still in flight once `--shutdown-timeout` runs out (a server
    /// dripping its answer): exit 143 within it, the batch unacknowledged, a rerun sends it.
    @Test func sigtermCutsOffARequestStillInFlightAfterTheShutdownTimeout() throws {
        let fixture = try SendFixture(events: 300)
        let records = fixture.records()
        fixture.emulator.script([.drip(milliseconds: 500)])
        let sending = try fixture.start(["--request-timeout", "10m", "--shutdown-timeout", "1s"])
        #expect(waitUntil(timeout: 30) { fixture.emulator.requests >= 1 })
        let signalled = Date()
        sending.signal(SIGTERM)
        let status = sending.waitForExit(timeout: 30)
        #expect(status == 143, "\(sending.stderr)")
        #expect(Date().timeIntervalSince(signalled) < 8, "waited on the dripping request past --shutdown-timeout")
        #expect(!fixture.ledger().contains { $0.hasPrefix("ack") })
        let rerun = try fixture.send()
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(Set(fixture.emulator.imported.map(\.line)).sorted() == records.sorted())
    }

    @Test func aSecondSendOnTheSameOutputWaitsItsTurnWithExit75() throws {
        let fixture = try SendFixture(events: 2000, maxEvents: 200)
        fixture.emulator.delayEveryRequest(milliseconds: 300)
        let first = try fixture.start()
        #expect(waitUntil(timeout: 30) { fixture.emulator.requests >= 1 })
        let second = try fixture.send()
        #expect(second.status == 75, "\(second.stderr)")
        #expect(second.stderr.contains("in use"))
        fixture.emulator.delayEveryRequest(milliseconds: 0)
        #expect(first.waitForExit(timeout: 60) == 0)
        #expect(fixture.emulator.imported.map(\.line).sorted() == fixture.records().sorted())
    }
}
