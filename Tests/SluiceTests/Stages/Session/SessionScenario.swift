@testable import Sluice

/// A random multi-device stream for the session and dedupe property tests:
/// devices living through sessions (gaps short and long, session starts,
/// sign-ins, sign-outs, switching users), merged by event time, then some
/// messages delivered late and some sent twice.
struct SessionScenario {
    struct Message {
        var line: String
        var device: String
        /// ms after `StageCase.base`.
        var time: Int
        var id: String
        /// Delivered after messages with a later time.
        var isLate = false
    }

    /// In arrival order.
    var messages: [Message] = []
    var lines: [String] { messages.map(\.line) }

    /// - `lateShare`: share of messages delivered late, by up to `maxDelay` ms of event time.
    /// - `duplicateShare`: share of messages sent twice (the second copy right after the first).
    static func make(seed: UInt64, devices: Int = 12, events: Int = 1500, lateShare: Double = 0.05,
                     maxDelay: Int = 4 * StageCase.minute, duplicateShare: Double = 0.0) -> SessionScenario {
        var random = StageTestRandom(seed: seed)
        var all: [Message] = []
        var counter = 0
        let perDevice = max(1, events / devices)
        for device in 0..<devices {
            let who = "dev-\(seed)-\(device)"
            var time = Int.random(in: 0..<(10 * StageCase.minute), using: &random)
            var user: String?
            var signedOut = false
            for _ in 0..<perDevice {
                let gapRoll = Double.random(in: 0..<1, using: &random)
                if gapRoll < 0.04 {
                    time += Int.random(in: (31 * StageCase.minute)...(5 * 60 * StageCase.minute), using: &random)
                } else if gapRoll < 0.06 {
                    time += 30 * StageCase.minute  // exactly the inactivity: no new session
                } else {
                    time += Int.random(in: 0...90_000, using: &random)
                }
                counter += 1
                let id = "m\(seed)-\(counter)"
                let roll = Double.random(in: 0..<1, using: &random)
                var line: String
                if roll < 0.05 {
                    if signedOut { user = nil; signedOut = false }
                    line = StageCase.message("session", at: time, who: who, user: user, id: id,
                                             extra: #""action":"start","settings":{"s":\#(Int.random(in: 0...2, using: &random))}"#)
                } else if roll < 0.08 {
                    // Sign in, sometimes as someone else.
                    user = "user-\(Int.random(in: 1...3, using: &random))"
                    signedOut = false
                    line = StageCase.message("identify", at: time, who: who, user: user, id: id,
                                             extra: #""traits":{"plan":"p\#(Int.random(in: 0...3, using: &random))","email":"x@y"}"#)
                } else if roll < 0.10 && user != nil {
                    signedOut = true
                    line = StageCase.message("track", at: time, who: who, user: user, event: "signed_out", id: id)
                } else {
                    if signedOut && Double.random(in: 0..<1, using: &random) < 0.5 { user = nil; signedOut = false }
                    line = StageCase.message("track", at: time, who: who, user: user,
                                             event: "e\(Int.random(in: 0...5, using: &random))", id: id)
                }
                all.append(Message(line: line, device: who, time: time, id: id))
            }
        }
        // Merge by event time (stable), then let some arrive late: a late message is
        // delivered after every message up to `delay` later than it.
        let keyed = all.enumerated().map { index, message -> (key: Int, index: Int, message: Message) in
            var message = message
            var key = message.time
            if Double.random(in: 0..<1, using: &random) < lateShare {
                key += Int.random(in: 1...maxDelay, using: &random)
                message.isLate = true
            }
            return (key, index, message)
        }
        var messages = keyed.sorted { ($0.key, $0.index) < ($1.key, $1.index) }.map(\.message)
        if duplicateShare > 0 {
            var doubled: [Message] = []
            for message in messages {
                doubled.append(message)
                if Double.random(in: 0..<1, using: &random) < duplicateShare { doubled.append(message) }
            }
            messages = doubled
        }
        return SessionScenario(messages: messages)
    }
}
