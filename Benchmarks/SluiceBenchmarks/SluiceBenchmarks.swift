import Benchmark
import Sluice
import SluiceJSON

// Micro-benchmarks of the hot parts, each over the same 10,000 generated
// events (`sluice generate --seed 1`): parse, write, each stage, each
// encoder, and deflate. One iteration is the whole batch, so throughput in
// events/s is 10,000 / the time per iteration. The whole pipeline's figures
// come from `scripts/bench`.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 200
    )
    let workload = Workload.shared

    Benchmark("parse: JSON line → tape") { benchmark in
        for line in workload.lines {
            blackHole(try? JSONDocument.parse(line))
        }
    }

    Benchmark("decode: line → Event (parse + required fields)") { benchmark in
        for (index, line) in workload.lines.enumerated() {
            let result = line.withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: Int64(index))) }
            blackHole(result)
        }
    }

    Benchmark("write: unchanged event → canonical JSON") { benchmark in
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        for event in workload.events {
            out.removeAll(keepingCapacity: true)
            event.document.write(to: &out)
        }
        blackHole(out)
    }

    Benchmark("write: event with an edit → canonical JSON") { benchmark in
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        for document in workload.edited {
            out.removeAll(keepingCapacity: true)
            document.write(to: &out)
        }
        blackHole(out)
    }

    for (name, yaml) in Workload.stagePipelines {
        Benchmark("stage: \(name)") { benchmark in
            var stages = Workload.stages(yaml)
            var output = StageOutput()
            for event in workload.events {
                output = StageOutput()
                for index in stages.indices { stages[index].process(event, into: &output) }
            }
            for index in stages.indices { stages[index].finish(into: &output) }
            blackHole(output)
        }
    }

    for type in Workload.destinationTypes {
        Benchmark("encode: \(type)") { benchmark in
            // As the runner encodes: into an output's buffer, with a context per event.
            var destination = Workload.destination(type)
            var out = ByteBuffer(capacity: 4 << 20)
            var context = EncodingContext()
            for event in workload.sessionized {
                if destination.skipReason(for: event) != nil { continue }
                context.reset()
                blackHole(destination.encode(event, context: &context, into: &out))
                if out.count > 2 << 20 { out.removeAll() }
            }
            blackHole(out.count)
        }
    }

    Benchmark("deflate: zlib level 6 over the batch's NDJSON") { benchmark in
        let deflater = GzipDeflater(level: 6, label: "<benchmark>")
        var compressed = 0
        try workload.ndjson.withUnsafeBytes { raw in try deflater.compress(raw) { compressed += $0.count } }
        try deflater.endMember { compressed += $0.count }
        blackHole(compressed)
    }
}
