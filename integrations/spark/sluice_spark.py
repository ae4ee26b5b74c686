#!/usr/bin/env python3
"""Sluice on Apache Spark: the devices split into shards, one Sluice per shard.

    spark-submit integrations/spark/sluice_spark.py \
        --pipeline PIPELINE.yaml --out OUT --partitions N INPUT...

Sluice keeps its state (open timers, sessions, the dedupe window) per device,
so a stream shards cleanly by device. This job:

1. checks, before Spark starts, that the inputs can be opened and that the
   pipeline can run as shards: a shard's own `sluice run` over no lines makes
   every check a shard makes at its start (among them: every file output
   path holds `{shard}`, so the shards' file names never collide); a problem
   ends the job with Sluice's own message as the last line on stderr;
2. reads the inputs (files, or directories whose files are read in name
   order; plain or gzip) as bytes, line by line: a line reaches Sluice exactly
   as it was written, invalid UTF-8 included;
3. asks `sluice shard-of` for each line's shard and event time (Sluice's own
   device hash and time rule, so a driver never has to reimplement them);
4. partitions the lines by shard and orders each partition by (event time,
   input index, line number): the order one `sluice run` of the same inputs
   merges them in;
5. runs one `sluice run --shard P --watermark-end T -` per partition (with
   `--order exact` when the sluice binary has it), T being the largest event
   time of all the inputs, so timers and sessions end alike in every shard.
   Each task attempt writes into a directory of its own under
   OUT/.sluice-attempts/, never into OUT, and reports success only when
   Sluice exited 0 and its --stats say it read every line the task gave it;
6. commits, in the driver, once every partition has reported: each reported
   attempt's files are moved into OUT, none replacing a file already there
   (a name taken refuses the commit, exit 73, and moves nothing); then every
   attempt directory is removed. An attempt Spark kills, cancels or loses
   therefore commits nothing, even when its Sluice saw the end of its stdin
   and exited 0, and each partition commits exactly once;
7. merges the shards' stats with `sluice stats merge` (printed, or written
   with --stats and --metrics), `elapsed_seconds` being the job's wall time.

Exit codes: 0 done; 64 usage; 66 an input cannot be opened; 70 a shard still
failed after Spark's retries (its Sluice's last message is the last line on
stderr), or the job could not run; 73 a file of the job's names is under OUT
already (nothing was moved); 74 a move failed (those made were undone);
78 (or another code of `sluice run`'s) the pipeline cannot run as shards;
65 `sluice stats merge` found a shard that did not add up.
The job's messages go to spark-submit's stderr (through its JVM: spark-submit
hands the Python driver's own stderr to its stdout), after Spark's log.

OUT must be a filesystem every executor writes to and that allows renames
(local disk in local mode, a shared mount on a cluster).
Docs: docs/scale-out.md in the Sluice repository.
"""

import argparse
import ctypes
import errno
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

# Exit codes (sysexits, as Sluice uses them).
EX_USAGE = 64
EX_NOINPUT = 66
EX_SOFTWARE = 70
EX_CANTCREAT = 73
EX_IOERR = 74

# Where the task attempts write, under OUT: hidden from `*/*.ndjson.gz` globs.
ATTEMPTS = ".sluice-attempts"
# The lines an injected failure lets through before it strikes.
INJECTED_AFTER = 1000


# spark-submit's own stderr (java.lang.System.err), once the driver is connected to its JVM.
# spark-submit hands the Python driver's stderr to its stdout, so the job's messages
# go there instead: the last line spark-submit writes to stderr is the job's.
_jvm_stderr = None


def connect_to_spark_submit():
    """The gateway to the JVM spark-submit started (None outside spark-submit); the job's messages go to its stderr."""
    global _jvm_stderr
    if "PYSPARK_GATEWAY_PORT" not in os.environ:
        return None
    try:
        from pyspark.java_gateway import launch_gateway
        gateway = launch_gateway()  # connects to spark-submit's JVM: PYSPARK_GATEWAY_PORT is set
        _jvm_stderr = gateway.jvm.System.err
        return gateway
    except Exception:  # no pyspark, or no JVM to talk to: the messages go to this process's stderr
        return None


def emit(text):
    """Lines of text to the job's stderr."""
    global _jvm_stderr
    if _jvm_stderr is not None:
        try:
            for line in text.split("\n"):
                _jvm_stderr.println(line)
            _jvm_stderr.flush()
            return
        except Exception:
            _jvm_stderr = None
    print(text, file=sys.stderr, flush=True)


def say(message):
    emit(f"sluice_spark.py: {message}")


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
                        help="testing: that partition's first attempt ends its Sluice's stdin after "
                             f"{INJECTED_AFTER} lines, lets it exit 0, and then its task dies, so Spark retries it")
    parser.add_argument("--inject-lost-lines", type=int, metavar="PARTITION",
                        help=f"testing: that partition's first attempt ends its Sluice's stdin after {INJECTED_AFTER} "
                             "lines but counts the rest as given, so the line check must fail it")
    parser.add_argument("--inject-sluice-error", type=int, metavar="PARTITION",
                        help="testing: that partition's Sluice is given a --metrics file it cannot write, "
                             "so every attempt fails with Sluice's own message")
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="input files or directories")
    args = parser.parse_args(argv)
    if args.partitions < 1:
        parser.error("--partitions must be at least 1")
    return args


def find_sluice(explicit):
    """The sluice binary's absolute path, or None (said why)."""
    candidate = explicit or os.environ.get("SLUICE") or shutil.which("sluice")
    if not candidate:
        say("error: no sluice binary: give --sluice PATH or set $SLUICE")
        return None
    candidate = os.path.abspath(candidate)
    if not os.access(candidate, os.X_OK):
        say(f"error: {candidate} is not an executable file")
        return None
    return candidate


class InputProblem(Exception):
    pass


def expand_inputs(paths):
    """Files as given; a directory's regular files in name order (as `sluice run` reads them).

    Every file is opened once here, so one that cannot be read ends the job
    before Spark starts, with the message `sluice run` gives.
    """
    expanded = []
    for path in paths:
        if path == "-":
            raise InputProblem("stdin cannot be sharded: give files or directories")
        try:
            if os.path.isdir(path):
                files = [os.path.join(path, name) for name in sorted(os.listdir(path))]
                files = [file for file in files if os.path.isfile(file)]
            elif os.path.isfile(path) or not os.path.lexists(path):
                files = [path]  # opening a missing one says so
            else:
                raise InputProblem(f"{path} is not a file or a directory")
            for file in files:
                with open(file, "rb"):
                    pass
                expanded.append(os.path.abspath(file))
        except OSError as error:
            raise InputProblem(f"cannot open input {error.filename or path}: {os.strerror(error.errno)}")
    return expanded


def shard_command(sluice, pipeline, directory, shard, watermark_end, stats_path, extra_options):
    """One shard's `sluice run` over its stdin, writing under `directory` (out/, staging/), never into OUT.

    --staging keeps the .part files of a running attempt where `sluice recover` leaves them alone.
    """
    command = [sluice, "run", "--pipeline", pipeline, "--out", os.path.join(directory, "out"),
               "--staging", os.path.join(directory, "staging"), "--shard", str(shard),
               "--watermark-end", str(watermark_end), "--quiet", *extra_options]
    if stats_path:
        command += ["--stats", stats_path]
    return command + ["-"]


def check_pipeline(sluice, pipeline, extra_options):
    """A shard's own `sluice run` over no lines: whether the pipeline can run as shards; 0 or its exit code.

    It makes every check a shard's run makes at its start (the pipeline file,
    {shard} in every output path, paths --staging can move), so a pipeline
    every shard would fail on ends the job before Spark starts. Sluice's
    messages go to stderr as they are: its own is the job's last line.
    """
    with tempfile.TemporaryDirectory(prefix="sluice-check-") as directory:
        result = subprocess.run(shard_command(sluice, pipeline, directory, 0, 0, None, extra_options),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if result.returncode != 0:
        say(f"error: the pipeline cannot run as shards (a shard's sluice run over no lines exited {result.returncode}):")
        emit(result.stderr.decode("utf-8", "replace").rstrip("\n"))
    return result.returncode


def run_options(sluice):
    """What this sluice's `run` takes that the job passes only when it is there: `--order exact`."""
    result = subprocess.run([sluice, "run", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return ["--order", "exact"] if re.search(rb"--order\b", result.stdout) else []


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


def _parent_death_signal():
    """A preexec function that has the child killed when the task's process dies (Linux), else None.

    A task Spark kills then takes its Sluice with it, instead of leaving it
    writing into an attempt directory nobody will commit.
    """
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1
    return lambda: prctl(pr_set_pdeathsig, signal.SIGKILL)


def run_shard(sluice, pipeline, attempts_root, watermark_end, extra_options, injected, partition, records):
    """Runs one Sluice over this partition's lines into this attempt's own directory.

    Yields (partition, attempt directory, stats JSON text) when Sluice exited
    0 having read every line it was given; raises otherwise (Spark retries
    the task), after writing why to failure.json in the attempt directory.
    Nothing goes into OUT here: the driver commits the reported attempts.
    """
    from pyspark import TaskContext

    task = TaskContext.get()
    attempt = task.attemptNumber()
    directory = os.path.join(attempts_root, f"shard-{partition}-attempt-{attempt}-task-{task.taskAttemptId()}")
    os.makedirs(directory)
    stats_path = os.path.join(directory, "stats.json")

    def fail(summary, sluice_message=""):
        with open(os.path.join(directory, "failure.json"), "w", encoding="utf-8") as file:
            json.dump({"partition": partition, "attempt": attempt, "summary": summary, "sluice": sluice_message}, file)
        raise RuntimeError(f"shard {partition} (attempt {attempt}): {summary}"
                           + (f": {sluice_message[-2000:]}" if sluice_message else ""))

    command = shard_command(sluice, pipeline, directory, partition, watermark_end, stats_path, extra_options)
    strike = injected.get(partition)
    if strike == "sluice-error":
        # A --metrics file under a file: Sluice refuses it at its start, in every attempt.
        command[-1:-1] = ["--metrics", "/dev/null/metrics.prom"]
    elif attempt != 0:
        strike = None
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=_parent_death_signal())
    errors = []
    reader = threading.Thread(target=lambda: errors.append(process.stderr.read()))
    reader.start()
    given = 0
    try:
        for _, line in records:
            if strike == "lost-lines" and given >= INJECTED_AFTER:
                given += 1  # counted as given, never written
                continue
            process.stdin.write(line + b"\n")
            given += 1
            if strike == "kill" and given == INJECTED_AFTER:
                # What a task Spark kills or loses mid-shard leaves: its Sluice sees the
                # end of its stdin and exits 0 over part of the shard. Then the task dies.
                process.stdin.close()
                process.wait()
                os.kill(os.getpid(), signal.SIGKILL)
            if strike == "lost-lines" and given == INJECTED_AFTER:
                process.stdin.close()
    except BrokenPipeError:
        pass  # Sluice stopped reading: its exit code or the line check below says why
    finally:
        try:
            process.stdin.close()
        except BrokenPipeError:
            pass
    code = process.wait()
    reader.join()
    message = b"".join(errors).decode("utf-8", "replace").strip()
    if code != 0:
        fail(f"sluice exited {code}", message)
    with open(stats_path, encoding="utf-8") as file:
        text = file.read()
    stats = json.loads(text)
    read = stats["lines_in"] + stats["blank_lines"]
    if read != given:
        fail(f"sluice exited 0 but read {read} of the {given} lines it was given; nothing of this attempt is committed",
             message)
    yield partition, directory, text


def _rename_function():
    """renameat2(RENAME_NOREPLACE) from the C library, or None."""
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return function


_renameat2 = _rename_function()


def rename_without_replacing(source, target):
    """Moves source to target, never over a file there (FileExistsError), as Sluice's staging does.

    renameat2(RENAME_NOREPLACE) where the filesystem has it, else a hard link
    (which fails on a taken name) and an unlink, else a check and a rename.
    """
    if _renameat2 is not None:
        at_fdcwd, rename_noreplace = -100, 1
        if _renameat2(at_fdcwd, os.fsencode(source), at_fdcwd, os.fsencode(target), rename_noreplace) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise OSError(code, os.strerror(code), target)
    try:
        os.link(source, target)
        os.unlink(source)
        return
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EMLINK):
            raise
    if os.path.lexists(target):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), target)
    os.rename(source, target)


def commit(results, out):
    """Moves every reported attempt's files into OUT, none over a file there; returns an exit code.

    Every name is checked first: one taken moves nothing (73). A move that
    fails undoes the moves made (74, or 73 for a name taken meanwhile).
    """
    moves = []
    for partition, directory, _ in results:
        root = os.path.join(directory, "out")
        for path, _, names in os.walk(root):
            for name in sorted(names):
                source = os.path.join(path, name)
                relative = os.path.relpath(source, root)
                moves.append((source, os.path.join(out, relative), relative))
    targets = [target for _, target, _ in moves]
    taken = [relative for _, target, relative in moves if os.path.lexists(target)]
    if len(set(targets)) != len(targets):
        seen, twice = set(), None
        for _, target, relative in moves:
            if target in seen:
                twice = relative
                break
            seen.add(target)
        say(f"error: two shards wrote {twice}: the pipeline's paths must hold {{shard}}; nothing was moved into {out}")
        return EX_CANTCREAT
    if taken:
        say(f"error: {len(taken)} of the job's {len(moves)} files have names that are under {out} already "
            f"({taken[0]}{', ...' if len(taken) > 1 else ''}): nothing was moved, nothing was replaced; "
            "give the job an OUT of its own, or move those files away")
        return EX_CANTCREAT
    moved = []
    try:
        for source, target, _ in moves:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            rename_without_replacing(source, target)
            moved.append((source, target))
    except OSError as error:
        for source, target in reversed(moved):
            os.rename(target, source)
        say(f"error: moving into {out} failed on {error.filename}: {error.strerror}; the {len(moved)} files moved "
            "were moved back: nothing of this job is under OUT")
        return EX_CANTCREAT if error.errno == errno.EEXIST else EX_IOERR
    for directory in sorted({os.path.dirname(target) for _, target in moved} | {out}):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    return 0


def unreported_attempts(attempts_root, reported):
    """Says which attempt directories neither reported success nor failure, nor were committed."""
    names = os.listdir(attempts_root) if os.path.isdir(attempts_root) else []
    for name in sorted(names):
        path = os.path.join(attempts_root, name)
        if path not in reported and not os.path.exists(os.path.join(path, "failure.json")):
            say(f"{name} did not report (its task was killed or lost, or another attempt of its shard reported first): "
                "nothing of it is committed")


def remove_attempts(attempts_root):
    """Removes every attempt directory of the job, and the directory of attempts when no other job's are there."""
    shutil.rmtree(attempts_root, ignore_errors=True)
    try:
        os.rmdir(os.path.dirname(attempts_root))
    except OSError:
        pass


def shard_failures(attempts_root):
    """Each failed shard's last failure.json, by partition."""
    failures = {}
    names = os.listdir(attempts_root) if os.path.isdir(attempts_root) else []
    for name in names:
        try:
            with open(os.path.join(attempts_root, name, "failure.json"), encoding="utf-8") as file:
                failure = json.load(file)
        except (OSError, ValueError):
            continue
        known = failures.get(failure["partition"])
        if known is None or failure["attempt"] > known["attempt"]:
            failures[failure["partition"]] = failure
    return failures


def report_failure(error, failures):
    """Why the job failed, the last line being the failed shard's Sluice's last message."""
    if not failures:
        text = str(error)
        found = re.findall(r"(?m)^\w*(?:Error|Exception): (.+)$", text)
        say(f"error: the job failed: {found[-1] if found else text}")
        return
    for partition in sorted(failures):
        failure = failures[partition]
        attempts = failure["attempt"] + 1
        say(f"error: shard {partition} failed in its {attempts} attempt{'s' if attempts != 1 else ''} "
            f"(the last: {failure['summary']}); nothing of the job was moved into OUT"
            + ("; its sluice said:" if failure["sluice"] else ""))
        if failure["sluice"]:
            emit(failure["sluice"])


def merge_stats(sluice, results, out, stats, metrics, elapsed_seconds):
    """`sluice stats merge` over the shards' stats (their files' paths under OUT); returns its exit code."""
    with tempfile.TemporaryDirectory(prefix="sluice-stats-") as directory:
        paths = []
        for partition, attempt, text in results:
            shard = json.loads(text)
            for file in shard.get("files", []):
                relative = os.path.relpath(file["path"], os.path.join(attempt, "out"))
                file["path"] = os.path.join(out, relative)
            path = os.path.join(directory, f"shard-{partition}.json")
            with open(path, "w", encoding="utf-8") as file:
                json.dump(shard, file, separators=(",", ":"))
            paths.append(path)
        merged = stats or os.path.join(directory, "merged.json")
        command = [sluice, "stats", "merge", *paths, "--out", merged, "--elapsed-seconds", f"{elapsed_seconds:.3f}"]
        if metrics:
            command += ["--metrics", metrics]
        result = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        code = result.returncode
        if result.stderr:
            emit(result.stderr.decode("utf-8", "replace").rstrip("\n"))
        if code == 0 and not stats:
            with open(merged, encoding="utf-8") as file:
                sys.stdout.write(file.read())
        return code


def main(argv):
    started = time.monotonic()
    args = parse_args(argv)
    gateway = connect_to_spark_submit()
    sluice = find_sluice(args.sluice)
    if sluice is None:
        return EX_USAGE
    pipeline = os.path.abspath(args.pipeline)
    out = os.path.abspath(args.out)
    partitions = args.partitions
    injected = {}
    if args.inject_failure is not None:
        injected[args.inject_failure] = "kill"
    if args.inject_lost_lines is not None:
        injected[args.inject_lost_lines] = "lost-lines"
    if args.inject_sluice_error is not None:
        injected[args.inject_sluice_error] = "sluice-error"

    # Everything that can be known wrong is found before Spark starts.
    try:
        inputs = expand_inputs(args.inputs)
    except InputProblem as problem:
        say(f"error: {problem}")
        return EX_NOINPUT
    extra_options = run_options(sluice)
    code = check_pipeline(sluice, pipeline, extra_options)
    if code != 0:
        return code
    attempts_root = os.path.join(out, ATTEMPTS, f"job-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}")
    try:
        os.makedirs(attempts_root)
    except OSError as error:
        say(f"error: cannot create {attempts_root}: {error.strerror}")
        return EX_CANTCREAT

    from pyspark import SparkContext, StorageLevel

    context = SparkContext(gateway=gateway) if gateway is not None else SparkContext.getOrCreate()
    failure = None
    results = []
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
        results = sorted(ordered.mapPartitionsWithIndex(
            lambda partition, records: run_shard(sluice, pipeline, attempts_root, watermark_end, extra_options,
                                                 injected, partition, records)).collect())
    except Exception as error:  # a shard failed after Spark's retries, or the job could not run
        failure = error
    finally:
        context.stop()
    if failure is not None:
        failures = shard_failures(attempts_root)
        remove_attempts(attempts_root)
        report_failure(failure, failures)
        return EX_SOFTWARE
    unreported_attempts(attempts_root, {directory for _, directory, _ in results})
    code = commit(results, out)
    remove_attempts(attempts_root)
    if code != 0:
        return code
    return merge_stats(sluice, results, out, args.stats, args.metrics, time.monotonic() - started)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
