@testable import Sluice
import SluiceJSON
import Testing

/// The session stage writes `context.session` into the event's bytes, so
/// later stages and destinations read it as if it had come in the line.
@Suite struct SessionJSONInsertionTests {
    @Test func theSessionStageWritesIntoTheBytesSoDestinationsCanReadIt() {
        var stage = StageCase.sessionStage()
        let withContext = StageCase.message(at: 0, extra: #""context":{"ip":"1"}"#)
        let withoutContext = StageCase.message(at: 1)
        let withSession = StageCase.message(at: 2, extra: #""context":{"session":{"id":"sdk"}}"#)
        let outcome = StageCase.run([withContext, withoutContext, withSession], through: &stage)
        for event in outcome.events {
            #expect(!event.document.isModified)
            #expect(event.document.find(JSONPath("context.session.seq")) != nil)
        }
        #expect(outcome.lines[2].contains(#""session":{"id":"#) && !outcome.lines[2].contains("sdk"))
    }
}
