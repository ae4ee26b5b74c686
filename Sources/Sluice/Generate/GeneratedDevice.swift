// Unsafe code: one `withUnsafeBytes`, to hash a device's id bytes with
// `StableHash`, which takes a raw buffer; the array outlives the call and the
// pointer is not kept.

/// The words the generated stream is made of (workload/gen_events.py).
enum GeneratorVocabulary {
    static let screens: [StaticString] = [
        "home", "search", "movie_detail", "player", "settings", "profile", "checkout", "onboarding",
    ]
    static let taps: [StaticString] = [
        "movie_tapped", "like_toggled", "search_submitted", "Notifications", "Profile Fields",
        "purchase_completed", "message_deleted", "share_sheet_opened",
    ]
    static let timed: [StaticString] = ["onboarding", "video_playback", "checkout_flow", "login_flow"]
    static let videoPlayback = 1
    /// Names that some providers refuse (GA4: letters, digits, underscores, <= 40 chars, no reserved prefix).
    static let oddNames: [StaticString] = [
        "Avatar Changed", "firebase_custom", "2fa_enabled", "ga_session_marker",
        "a_very_long_event_name_that_goes_well_beyond_forty_characters", "Ünïcödé Event", "screen_view",
    ]
    static let devices: [(model: StaticString, maker: StaticString, os: StaticString, version: StaticString)] = [
        ("iPhone15,2", "Apple", "iOS", "17.1"), ("iPhone14,5", "Apple", "iOS", "16.6"),
        ("iPad13,8", "Apple", "iPadOS", "17.0"), ("Pixel 8", "Google", "Android", "14"),
        ("SM-S918B", "Samsung", "Android", "13"),
    ]
    static let first: [StaticString] = ["ana", "bo", "chen", "dara", "eli", "fatima", "goran", "hiro"]
    static let domains: [StaticString] = ["example.com", "mail.example.org", "corp.example.net"]
    static let plans: [StaticString] = ["free", "pro", "family"]
    static let queries: [StaticString] = ["daredevil", "comedy 2024", "kids", "jessica jones"]
    static let shareTargets: [StaticString] = ["messages", "mail", "copy", "airdrop"]
    static let nested: StaticString = #"{"a":[1,2.5,-0.0,1e21,null,true],"b":{"c":"é漢😀"}}"#
}

/// The lines of one burst of a device's activity, back to back, with where each ends.
struct BurstLines {
    var buffer = LineBuffer()
    var ends: [Int] = []
    /// Room to build a free-text value before it is quoted.
    var scratch = LineBuffer()

    mutating func reset() {
        buffer.bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    mutating func endLine() { ends.append(buffer.count) }
}

/// One app install: its identity, its signed-in user, its open timers and its own PRNG.
struct GeneratedDevice {
    private typealias V = GeneratorVocabulary
    private static let sessionGap: Int64 = 30 * 60 * 1_000_000

    private struct OpenTimer {
        var name: Int
        /// The 24-bit timer id, or -1 for none.
        var timerId: Int32
    }

    private var random: GeneratorRandom
    private let anonymousId: [UInt8]
    /// `,"context":{...}`: the same on every message of the device.
    private let context: [UInt8]
    /// `,"action":"start","settings":{...}}`: the tail of every session start.
    private let sessionTail: [UInt8]
    /// The `n` of `user-n` while signed in; 0 when signed out.
    private var userNumber = 0
    private var openTimers: [OpenTimer] = []
    private(set) var clock: EventTime?
    private var messages = 0

    init(index: Int, random: GeneratorRandom) {
        var r = random
        var anon = LineBuffer()
        anon.put("dev-")
        anon.put(decimal: index, width: 6)
        anon.put(byte: UInt8(ascii: "-"))
        anon.put(hex: r.bits(32), width: 8)
        let device = V.devices[r.below(V.devices.count)]
        var context = LineBuffer()
        context.put(#","context":{"app":{"name":"Flix","version":"3.2.1","build":"3210"},"device":{"model":""#)
        context.put(device.model)
        context.put(#"","manufacturer":""#)
        context.put(device.maker)
        // The Firebase SDK's app instance id (32 hex digits), which GA4 app streams need:
        // made from the device's id, not drawn (the stream stays what it was), and
        // missing on one device in 16, as on installs without Firebase.
        let instance = anon.bytes.withUnsafeBytes { (StableHash.hash($0, seed: StableHash.seedA), StableHash.hash($0, seed: StableHash.seedB)) }
        if instance.0 & 15 != 0 {
            context.put(#"","appInstanceId":""#)
            context.put(hex: instance.0, width: 16)
            context.put(hex: instance.1, width: 16)
        }
        context.put(#""},"os":{"name":""#)
        context.put(device.os)
        context.put(#"","version":""#)
        context.put(device.version)
        context.put(#""},"ip":""#)
        if r.chance(0.8) {
            context.put("203.0.")
            context.put(decimal: r.int(0, 255))
            context.put(byte: UInt8(ascii: "."))
            context.put(decimal: r.int(1, 254))
        } else {
            context.put("2001:db8:")
            context.put(hex: UInt64(r.int(0, 65535)))
            context.put(byte: UInt8(ascii: ":"))
            context.put(hex: UInt64(r.int(0, 65535)))
            context.put("::")
            context.put(hex: UInt64(r.int(1, 65535)))
        }
        context.put(#"","locale":"en_US","timezone":"Europe/Berlin""#)
        if r.chance(0.02) {
            context.put(#","consent":{"analytics":false}"#)
        }
        context.put("}")
        var tail = LineBuffer()
        tail.put(#","action":"start","settings":{"voiceOver":"#)
        tail.put(bool: r.chance(0.05))
        tail.put(#","largeText":"#)
        tail.put(bool: r.chance(0.1))
        tail.put(#","reduceMotion":"#)
        tail.put(bool: r.chance(0.08))
        tail.put("}}")
        self.random = r
        self.anonymousId = anon.bytes
        self.context = context.bytes
        self.sessionTail = tail.bytes
    }

    /// The common head of every message, up to and including `context`; the object is left open.
    @inline(__always)
    private mutating func open(_ type: StaticString, _ time: EventTime, _ out: inout LineBuffer) {
        messages += 1
        out.put(#"{"type":""#)
        out.put(type)
        out.put(#"","messageId":""#)
        out.put(anonymousId)
        out.put(byte: UInt8(ascii: "-"))
        out.put(decimal: messages)
        out.put(#"","timestamp":""#)
        out.put(timestamp: time)
        out.put(#"","anonymousId":""#)
        out.put(anonymousId)
        out.put(byte: UInt8(ascii: "\""))
        if userNumber > 0 {
            out.put(#","userId":"user-"#)
            out.put(decimal: userNumber)
            out.put(byte: UInt8(ascii: "\""))
        }
        out.put(context)
    }

    @inline(__always)
    private mutating func pick(_ words: [StaticString], _ out: inout LineBuffer) {
        out.put(words[random.below(words.count)])
    }

    @inline(__always)
    private mutating func step(_ time: EventTime) -> EventTime {
        EventTime(microseconds: time.microseconds + Int64(random.int(200, 20000)) * 1000)
    }

    private mutating func sessionStart(_ time: EventTime, _ lines: inout BurstLines) {
        open("session", time, &lines.buffer)
        lines.buffer.put(sessionTail)
        lines.endLine()
    }

    /// One burst of activity at `start`: maybe a new session (and a sign-in), then 1 to 6 messages.
    mutating func burst(at start: EventTime, into lines: inout BurstLines) {
        var t = start
        if clock.map({ t.microseconds - $0.microseconds > Self.sessionGap }) ?? true || random.chance(0.05) {
            sessionStart(t, &lines)
            if userNumber == 0 && random.chance(0.4) {
                t = step(t)
                userNumber = random.int(1, 1_000_000)
                open("identify", t, &lines.buffer)
                lines.buffer.put(#","traits":{"email":""#)
                pick(V.first, &lines.buffer)
                lines.buffer.put(decimal: random.int(1, 999))
                lines.buffer.put(byte: UInt8(ascii: "@"))
                pick(V.domains, &lines.buffer)
                lines.buffer.put(#"","plan":""#)
                pick(V.plans, &lines.buffer)
                lines.buffer.put(#"","pushNotificationsEnabled":"#)
                lines.buffer.put(bool: random.chance(0.6))
                lines.buffer.put(#","isBiometricsEnabled":"#)
                lines.buffer.put(bool: random.chance(0.3))
                lines.buffer.put("}}")
                lines.endLine()
            }
        }
        for _ in 0..<random.int(1, 6) {
            t = step(t)
            let roll = random.unit()
            if roll < 0.30 {
                open("screen", t, &lines.buffer)
                lines.buffer.put(#","name":""#)
                pick(V.screens, &lines.buffer)
                lines.buffer.put(#"","properties":{"referrer":""#)
                pick(V.screens, &lines.buffer)
                lines.buffer.put(#""}}"#)
            } else if roll < 0.40 {
                timedStart(t, &lines.buffer)
            } else if roll < 0.52 && !openTimers.isEmpty {
                let timer = openTimers.remove(at: random.below(openTimers.count))
                if random.chance(0.08) { continue }  // abandoned: never stopped
                open("track", t, &lines.buffer)
                lines.buffer.put(#","event":""#)
                lines.buffer.put(V.timed[timer.name])
                lines.buffer.put(#"","timed":"stop""#)
                if timer.timerId >= 0 { putTimerId(UInt64(timer.timerId), &lines.buffer) }
                lines.buffer.put(#","properties":{"completed":"#)
                lines.buffer.put(bool: random.chance(0.8))
                lines.buffer.put("}}")
            } else if roll < 0.54 {
                open("track", t, &lines.buffer)  // a stop whose start was never seen
                lines.buffer.put(#","event":""#)
                pick(V.timed, &lines.buffer)
                lines.buffer.put(#"","timed":"stop","properties":{}}"#)
            } else if roll < 0.58 {
                open("track", t, &lines.buffer)
                lines.buffer.put(#","event":""#)
                pick(V.oddNames, &lines.buffer)
                lines.buffer.put(#"","properties":{"detail":""#)
                lines.buffer.put(random.chance(0.5) ? "x" : "y")
                lines.buffer.put(#"","count":"#)
                lines.buffer.put(decimal: random.int(0, 9))
                lines.buffer.put("}}")
            } else if roll < 0.64 {
                feedback(t, &lines)
            } else if roll < 0.66 && userNumber > 0 {
                open("identify", t, &lines.buffer)
                lines.buffer.put(#","traits":{"plan":""#)
                pick(V.plans, &lines.buffer)
                lines.buffer.put(#"","phone":"+44 20 7946 "#)
                lines.buffer.put(decimal: random.int(1000, 9999))
                lines.buffer.put(#""}}"#)
            } else if roll < 0.67 && userNumber > 0 {
                open("track", t, &lines.buffer)
                lines.buffer.put(#","event":"signed_out","properties":{}}"#)
                lines.endLine()
                userNumber = 0
                open("session", EventTime(microseconds: t.microseconds + 1000), &lines.buffer)
                lines.buffer.put(sessionTail)
            } else {
                tap(t, &lines.buffer)
            }
            lines.endLine()
        }
        clock = t
    }

    @inline(__always)
    private func putTimerId(_ id: UInt64, _ out: inout LineBuffer) {
        out.put(#","timerId":"play-"#)
        out.put(hex: id, width: 6)
        out.put(byte: UInt8(ascii: "\""))
    }

    private mutating func timedStart(_ t: EventTime, _ out: inout LineBuffer) {
        let name = random.below(V.timed.count)
        open("track", t, &out)
        out.put(#","event":""#)
        out.put(V.timed[name])
        out.put(#"","timed":"start""#)
        var timerId: Int32 = -1
        if name == V.videoPlayback && random.chance(0.5) {
            timerId = Int32(random.bits(24))
            putTimerId(UInt64(timerId), &out)
        }
        out.put(#","properties":{"step_count":"#)
        out.put(decimal: random.int(1, 5))
        out.put("}}")
        openTimers.append(OpenTimer(name: name, timerId: timerId))
    }

    /// A `feedback_sent` whose free text carries PII: an email, a phone, a card number or an IP.
    private mutating func feedback(_ t: EventTime, _ lines: inout BurstLines) {
        open("track", t, &lines.buffer)
        lines.buffer.put(#","event":"feedback_sent","properties":{"text":"#)
        lines.scratch.bytes.removeAll(keepingCapacity: true)
        let who = V.first[random.below(V.first.count)]
        switch random.below(5) {
        case 0:
            lines.scratch.put("contact me at ")
            lines.scratch.put(who)
            lines.scratch.put(byte: UInt8(ascii: "."))
            lines.scratch.put(decimal: random.int(1, 99))
            lines.scratch.put(byte: UInt8(ascii: "@"))
            pick(V.domains, &lines.scratch)
        case 1:
            lines.scratch.put("call +1 415 555 ")
            lines.scratch.put(decimal: random.int(1000, 9999))
        case 2:
            lines.scratch.put("card 4111 1111 1111 1111 exp 12/29")
        case 3:
            lines.scratch.put("my ip is 198.51.100.")
            lines.scratch.put(decimal: random.int(1, 254))
        default:
            lines.scratch.put(who)
            lines.scratch.put(" says hi")
        }
        lines.buffer.put(quoted: lines.scratch.bytes)
        lines.buffer.put(#","rating":"#)
        lines.buffer.put(decimal: random.int(1, 5))
        lines.buffer.put(#","user_email":"#)
        if random.chance(0.5) {
            lines.buffer.put(byte: UInt8(ascii: "\""))
            pick(V.first, &lines.buffer)
            lines.buffer.put(byte: UInt8(ascii: "@"))
            pick(V.domains, &lines.buffer)
            lines.buffer.put(byte: UInt8(ascii: "\""))
        } else {
            lines.buffer.put("null")
        }
        lines.buffer.put("}}")
    }

    /// A tap: one of `GeneratorVocabulary.taps` with its property shape, now and then a
    /// 2^63 + n id or a nested value with `-0.0`, `1e21`, `null` and non-ASCII text.
    private mutating func tap(_ t: EventTime, _ out: inout LineBuffer) {
        let kind = random.below(V.taps.count)
        open("track", t, &out)
        out.put(#","event":""#)
        out.put(V.taps[kind])
        out.put(#"","properties":{"#)
        switch kind {
        case 0:
            out.put(#""movie_id":"#)
            out.put(decimal: random.int(1, 99999))
            out.put(#","movie_slug":""#)
            out.put(decimal: random.int(1, 99999))
            out.put(#"-daredevil","movie_index":"#)
            out.put(decimal: random.int(0, 40))
        case 1:
            out.put(#""liked":"#)
            out.put(bool: random.chance(0.7))
            out.put(random.chance(0.5) ? #","source":"feed""# : #","source":"detail""#)
        case 2:
            out.put(#""query":""#)
            pick(V.queries, &out)
            out.put(#"","results":"#)
            out.put(decimal: random.int(0, 300))
        case 3:
            out.put(#""Notification Enabled":"#)
            out.put(bool: random.chance(0.5))
        case 4:
            out.put(#""First Name Changed":true,"Last Name Changed":false,"Email Address Changed":"#)
            out.put(bool: random.chance(0.3))
            out.put(#","Bio Changed":false,"Total Fields Changed":"#)
            out.put(decimal: random.int(1, 4))
        case 5:
            // round(uniform(0.99, 49.99), 2) as Python prints it: 12.5, 7.0, 49.99
            let cents = random.int(99, 4999)
            out.put(#""price":"#)
            out.put(decimal: cents / 100)
            out.put(byte: UInt8(ascii: "."))
            if cents % 10 == 0 {
                out.put(decimal: (cents % 100) / 10)
            } else {
                out.put(decimal: cents % 100, width: 2)
            }
            out.put(#","currency":"USD","sku":"sku_"#)
            out.put(decimal: random.int(100, 999))
            out.put(#"","quantity":"#)
            out.put(decimal: random.int(1, 3))
        case 6:
            out.put(#""index":"#)
            out.put(decimal: random.int(0, 50))
            out.put(#","read":"#)
            out.put(bool: random.chance(0.5))
        default:
            let first = random.below(4)
            var second = random.below(3)
            if second >= first { second += 1 }
            out.put(#""targets":[""#)
            out.put(V.shareTargets[first])
            out.put(#"",""#)
            out.put(V.shareTargets[second])
            out.put(#""]"#)
        }
        if random.chance(0.02) {
            out.put(#","big_id":"#)
            out.put(decimal: (UInt64(1) << 63) + UInt64(random.int(0, 1000)))
        }
        if random.chance(0.03) {
            out.put(#","nested":"#)
            out.put(V.nested)
        }
        out.put("}}")
    }
}
