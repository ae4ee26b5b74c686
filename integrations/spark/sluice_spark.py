#!/usr/bin/env python3
"""Sluice on Apache Spark: the devices split into shards, one Sluice per shard.

    spark-submit integrations/spark/sluice_spark.py \
        --pipeline PIPELINE.yaml --out OUT --partitions N INPUT...

Sluice keeps its state (open timers, sessions, the dedupe window) per device,
so a stream shards cleanly by device. This job:

1. reads the inputs (files, or directories whose files are read in name
   order; plain or gzip) as bytes, line by line: a line reaches Sluice exactly
   as it was written, invalid UTF-8 included;
2. asks `sluice shard-of` for each line's shard and event time (Sluice's own
   device hash and time rule, so a driver never has to reimplement them);
3. partitions the lines by shard and orders each partition by (event time,
   input index, line number): the order one `sluice run` of the same inputs
   merges them in;
4. runs one `sluice run --shard P --staging DIR --watermark-end T -` per
   partition, T being the largest event time of all the inputs, so timers
   and sessions end alike in every shard. A shard's files are moved into
   OUT only when its run ends 0: an attempt Spark kills or retries leaves
   nothing behind, and a retried partition writes each record once;
5. merges the shards' stats with `sluice stats merge` (written with --stats
   and --metrics) and exits non-zero if any shard failed after Spark's retries.

OUT must be a filesystem every executor writes to (local disk in local mode,
a shared mount on a cluster). The pipeline's path templates should hold
`{shard}` so the shards' file names never collide (`sluice validate` says so).
Docs: docs/scale-out.md in the Sluice repository.
"""

import argparse
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

# Exit codes (sysexits, as Sluice uses them).
EX_USAGE = 64
EX_SOFTWARE = 70


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="sluice_spark.py",
        description="Run a Sluice pipeline over inputs sharded by device on Apache Spark.")
    parser.add_argument("--pipeline", required=True, help="the pipeline file (YAML)")
    parser.add_argument("--out", required=True, help="the output root every shard writes under")
    parser.add_argument("--partitions", type=int, required=True, help="how many shards (Sluice processes)")
    parser.add_argument("--sluice", help="the sluice binary (default: $SLUICE, else sluice on PATH)")
    parser.add_argument("--stats", help="write the merged stats (JSON) to this file")
    parser.add_argument("--metrics", help="write the merged stats as a Prometheus textfile")
    parser.add_argument("--inject-failure", type=int, metavar="PARTITION",
                        help="testing: kill that partition's first attempt half-way, so Spark retries it")
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="input files or directories")
    args = parser.parse_args(argv)
    if args.partitions < 1:
        parser.error("--partitions must be at least 1")
    return args


def find_sluice(explicit):
    candidate = explicit or os.environ.get("SLUICE") or shutil.which("sluice")
    if not candidate:
        raise SystemExit("sluice_spark.py: error: no sluice binary: give --sluice PATH or set $SLUICE")
    candidate = os.path.abspath(candidate)
    if not os.access(candidate, os.X_OK):
        raise SystemExit(f"sluice_spark.py: error: {candidate} is not an executable file")
    return candidate


def expand_inputs(paths):
    """Files as given; a directory's regular files in name order (as `sluice run` reads them)."""
    expanded = []
    for path in paths:
        if path == "-":
            raise SystemExit("sluice_spark.py: error: stdin cannot be sharded: give files or directories")
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                full = os.path.join(path, name)
                if os.path.isfile(full):
                    expanded.append(os.path.abspath(full))
        elif os.path.isfile(path):
            expanded.append(os.path.abspath(path))
        else:
            raise SystemExit(f"sluice_spark.py: error: no such input: {path}")
    return expanded


def open_input(path):
    """The input's bytes, gunzipped when it starts with the gzip magic (as Sluice decides)."""
    with open(path, "rb") as probe:
        magic = probe.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def input_lines(path):
    """The input's lines as bytes, without their newline; a last line without one is a line."""
    with open_input(path) as stream:
        for line in stream:
            yield line[:-1] if line.endswith(b"\n") else line


def keyed_lines(sluice, partitions, input_index, path):
    """((shard, time_ms, input_index, line_number), line) for every line of one input.

    The lines go through `sluice shard-of` on a pipe; its answers come back one
    per line, in order, read while the lines are written.
    """
    process = subprocess.Popen([sluice, "shard-of", "--shards", str(partitions), "-"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    lines = []
    failure = []

    def feed():
        try:
            for line in input_lines(path):
                lines.append(line)
                process.stdin.write(line + b"\n")
        except BrokenPipeError as error:
            failure.append(error)
        finally:
            try:
                process.stdin.close()
            except BrokenPipeError:
                pass

    writer = threading.Thread(target=feed)
    writer.start()
    answers = process.stdout.read().split(b"\n")
    writer.join()
    code = process.wait()
    if answers and answers[-1] == b"":
        answers.pop()
    if code != 0 or failure or len(answers) != len(lines):
        raise RuntimeError(f"sluice shard-of failed on {path} (exit {code}, "
                           f"{len(answers)} answers for {len(lines)} lines)")
    for number, (line, answer) in enumerate(zip(lines, answers), start=1):
        shard, time_ms = answer.split(b"\t")
        yield (int(shard), int(time_ms), input_index, number), line


def run_shard(sluice, pipeline, out, watermark_end, inject_failure, partition, records):
    """Runs one Sluice over this partition's lines; yields (partition, stats JSON text).

    Raises (so Spark retries the task) when Sluice does not end 0. The shard's
    files stay in its staging directory until its run ends 0, so a failed or
    killed attempt leaves nothing under OUT.
    """
    from pyspark import TaskContext

    attempt = TaskContext.get().attemptNumber()
    staging_root = os.path.join(out, ".sluice-staging")
    os.makedirs(staging_root, exist_ok=True)
    # Earlier attempts of this partition left only their staging directory behind.
    for name in os.listdir(staging_root):
        if name.startswith(f"shard-{partition}-attempt-"):
            shutil.rmtree(os.path.join(staging_root, name), ignore_errors=True)
    staging = os.path.join(staging_root, f"shard-{partition}-attempt-{attempt}")
    stats_dir = tempfile.mkdtemp(prefix=f"sluice-shard-{partition}-")
    stats_path = os.path.join(stats_dir, "stats.json")
    command = [sluice, "run", "--pipeline", pipeline, "--out", out, "--shard", str(partition),
               "--staging", staging, "--watermark-end", str(watermark_end), "--stats", stats_path,
               "--quiet", "-"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    errors = []
    reader = threading.Thread(target=lambda: errors.append(process.stderr.read()))
    reader.start()
    kill_half_way = inject_failure == partition and attempt == 0
    try:
        written = 0
        for _, line in records:
            process.stdin.write(line + b"\n")
            written += 1
            if kill_half_way and written == 1000:
                process.stdin.flush()
                process.send_signal(signal.SIGKILL)
                break
        process.stdin.close()
    except BrokenPipeError:
        pass
    code = process.wait()
    reader.join()
    message = b"".join(errors).decode("utf-8", "replace").strip()
    if code != 0:
        shutil.rmtree(stats_dir, ignore_errors=True)
        raise RuntimeError(f"shard {partition} (attempt {attempt}): sluice exited {code}: {message[-2000:]}")
    with open(stats_path, encoding="utf-8") as stats:
        text = stats.read()
    shutil.rmtree(stats_dir, ignore_errors=True)
    shutil.rmtree(staging, ignore_errors=True)
    yield partition, text


def merge_stats(sluice, shard_stats, stats, metrics):
    """`sluice stats merge` over the shards' stats; returns its exit code."""
    with tempfile.TemporaryDirectory(prefix="sluice-stats-") as directory:
        paths = []
        for partition, text in sorted(shard_stats):
            path = os.path.join(directory, f"shard-{partition}.json")
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
            paths.append(path)
        command = [sluice, "stats", "merge", *paths]
        merged = stats or os.path.join(directory, "merged.json")
        command += ["--out", merged]
        if metrics:
            command += ["--metrics", metrics]
        code = subprocess.call(command)
        if code == 0 and not stats:
            with open(merged, encoding="utf-8") as file:
                sys.stdout.write(file.read())
        return code


def main(argv):
    args = parse_args(argv)
    sluice = find_sluice(args.sluice)
    pipeline = os.path.abspath(args.pipeline)
    out = os.path.abspath(args.out)
    inputs = expand_inputs(args.inputs)
    partitions = args.partitions
    inject_failure = args.inject_failure

    from pyspark import SparkContext, StorageLevel

    context = SparkContext.getOrCreate()
    try:
        keyed = (context.parallelize(list(enumerate(inputs)), max(1, len(inputs)))
                 .flatMap(lambda item: keyed_lines(sluice, partitions, item[0], item[1]))
                 .persist(StorageLevel.MEMORY_AND_DISK))
        if keyed.isEmpty():
            watermark_end = 0
        else:
            watermark_end = keyed.map(lambda pair: pair[0][1]).max()
        ordered = keyed.repartitionAndSortWithinPartitions(
            numPartitions=partitions, partitionFunc=lambda key: key[0])
        shard_stats = ordered.mapPartitionsWithIndex(
            lambda partition, records: run_shard(sluice, pipeline, out, watermark_end, inject_failure,
                                                 partition, records)).collect()
    except Exception as error:  # a shard failed after Spark's retries, or the job could not run
        print(f"sluice_spark.py: error: {error}", file=sys.stderr)
        return EX_SOFTWARE
    finally:
        context.stop()
    shutil.rmtree(os.path.join(out, ".sluice-staging"), ignore_errors=True)
    return merge_stats(sluice, shard_stats, args.stats, args.metrics)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
