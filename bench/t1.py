#!/usr/bin/env python3
"""The comparison job "T1" as a team would script it: one Python process.

Reads NDJSON (a path, or - for stdin); rejects lines that are not JSON objects
(with Sluice's input checks; counted, written to a rejects file); zeroes the
last octet of `context.ip` (IPv4 and IPv6); replaces `traits.email` and
`properties.user_email` with the HMAC-SHA-256 hex of the value; masks emails
inside `properties.text`; and writes
every event to three gzip-6 outputs (zlib, the library Sluice uses):
Mixpanel Import API records, Amplitude HTTP V2 events, and the scrubbed event.
Mixpanel takes track/screen/page, Amplitude those and identify, as in Sluice.

    bench/t1.py --out DIR events.ndjson        # key: bench/bench-hmac.key, as pipelines/bench-t1.yaml

Uses orjson when it is installed (pip install orjson), else the json module.
It is the baseline of `scripts/bench`, not part of Sluice.
"""
import argparse
import hashlib
import hmac
import ipaddress
import os
import re
import sys
import zlib
from datetime import datetime

try:
    import orjson

    loads = orjson.loads

    def dumps(value):
        return orjson.dumps(value)

    JSON = "orjson"
except ImportError:  # pragma: no cover - depends on the machine
    import json

    loads = json.loads

    def dumps(value):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()

    JSON = "json"

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
CONTEXT_MIXPANEL = (("$os", ("os", "name")), ("$os_version", ("os", "version")), ("$model", ("device", "model")),
                    ("$manufacturer", ("device", "manufacturer")), ("$app_version_string", ("app", "version")),
                    ("$app_build_number", ("app", "build")), ("ip", ("ip",)))
CONTEXT_AMPLITUDE = (("platform", ("os", "name")), ("os_name", ("os", "name")), ("os_version", ("os", "version")),
                     ("device_model", ("device", "model")), ("device_manufacturer", ("device", "manufacturer")),
                     ("app_version", ("app", "version")), ("ip", ("ip",)))


class GzipOut:
    """A gzip file written with zlib level 6, flushed in 1 MiB chunks."""

    def __init__(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.file = open(path, "wb")
        self.deflate = zlib.compressobj(6, zlib.DEFLATED, 31)
        self.pending = []
        self.size = 0

    def write(self, line):
        self.pending.append(line)
        self.size += len(line)
        if self.size >= 1 << 20:
            self.file.write(self.deflate.compress(b"".join(self.pending)))
            self.pending, self.size = [], 0

    def close(self):
        self.file.write(self.deflate.compress(b"".join(self.pending)))
        self.file.write(self.deflate.flush())
        self.file.close()


def truncate_ip(value):
    if not isinstance(value, str):
        return value
    if "." in value and ":" not in value:
        parts = value.split(".")
        if len(parts) == 4:
            parts[3] = "0"
            return ".".join(parts)
        return value
    try:
        address = int(ipaddress.IPv6Address(value))
    except ValueError:
        return value
    return str(ipaddress.IPv6Address(address & ~0xFF))


def iso_to_ms(text):
    """ISO 8601 with a zone to milliseconds since the epoch."""
    return int(datetime.fromisoformat(text).timestamp() * 1000)


def insert_id(message_id, name):
    digest = hashlib.blake2b(f"{message_id}\0{name}".encode(), digest_size=16).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:]}"


TYPES = {"track", "screen", "page", "identify", "group", "alias", "session"}


def check(event):
    """Sluice's input checks: the reason a line is rejected, or None (stores the time in `_ms`)."""
    if not isinstance(event, dict):
        return "not_an_object"
    if event.get("type") not in TYPES:
        return "unknown_type"
    if not any(isinstance(event.get(key), str) and event.get(key) for key in ("anonymousId", "userId")):
        return "missing_identity"
    timestamp = event.get("timestamp")
    try:
        millis = iso_to_ms(timestamp)
    except (TypeError, ValueError):
        return "invalid_timestamp"
    if event["type"] == "track" and not (isinstance(event.get("event"), str) and event["event"]):
        return "missing_event_name"
    event["_ms"] = millis
    return None


def dig(obj, path):
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def name_of(event):
    kind = event.get("type")
    if kind == "track":
        return event.get("event") or ""
    if kind == "screen":
        return f"Viewed {event.get('name') or ''} Screen"
    if kind == "page":
        return f"Viewed {event.get('name') or ''} Page"
    return kind


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("--out", required=True)
    ap.add_argument("--key-file", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-hmac.key"))
    a = ap.parse_args()
    with open(a.key_file, "rb") as file:
        key = file.read().rstrip(b"\r\n")

    def pseudonym(value):
        if not isinstance(value, str):
            return value
        return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()

    outputs = {name: GzipOut(os.path.join(a.out, name, f"{name}.ndjson.gz"))
               for name in ("mixpanel", "amplitude", "archive", "rejects")}
    lines = rejected = 0
    source = sys.stdin.buffer if a.input == "-" else open(a.input, "rb")
    for number, line in enumerate(source, 1):
        if not line.strip():
            continue
        lines += 1
        try:
            event = loads(line)
        except ValueError:
            event = None
        reason = check(event)
        if reason:
            rejected += 1
            outputs["rejects"].write(dumps({"line_number": number, "reason": reason,
                                            "line": line.decode("utf-8", "replace").rstrip("\n")}) + b"\n")
            continue
        context = event.get("context")
        if isinstance(context, dict) and "ip" in context:
            context["ip"] = truncate_ip(context["ip"])
        traits = event.get("traits")
        if isinstance(traits, dict) and "email" in traits:
            traits["email"] = pseudonym(traits["email"])
        properties = event.get("properties")
        if isinstance(properties, dict):
            if "user_email" in properties:
                properties["user_email"] = pseudonym(properties["user_email"])
            text = properties.get("text")
            if isinstance(text, str) and "@" in text:
                properties["text"] = EMAIL.sub("[email]", text)
        millis = event.pop("_ms")
        outputs["archive"].write(dumps(event) + b"\n")

        kind = event.get("type")
        user, device = event.get("userId"), event.get("anonymousId")
        name = name_of(event)
        ident = insert_id(event.get("messageId"), name)
        context = context if isinstance(context, dict) else {}
        if kind in ("track", "screen", "page"):
            record = {"time": millis, "distinct_id": user or device, "$insert_id": ident}
            if device:
                record["$device_id"] = device
            if user:
                record["$user_id"] = user
            for field, path in CONTEXT_MIXPANEL:
                value = dig(context, path)
                if isinstance(value, str):
                    record[field] = value
            if isinstance(properties, dict):
                for field, value in properties.items():
                    record.setdefault(field, value[:255] if isinstance(value, str) else value)
            outputs["mixpanel"].write(dumps({"event": name, "properties": record}) + b"\n")
        if kind in ("track", "screen", "page", "identify"):
            record = {"event_type": "$identify" if kind == "identify" else name}
            if user and len(user) >= 5:
                record["user_id"] = user
            if device and len(device) >= 5:
                record["device_id"] = device
            record["time"] = millis
            record["session_id"] = -1
            record["insert_id"] = ident
            if kind == "identify":
                record["user_properties"] = {"$set": traits if isinstance(traits, dict) else {}}
            else:
                record["event_properties"] = properties if isinstance(properties, dict) else {}
            for field, path in CONTEXT_AMPLITUDE:
                value = dig(context, path)
                if isinstance(value, str):
                    record[field] = value
            outputs["amplitude"].write(dumps(record) + b"\n")
    for output in outputs.values():
        output.close()
    print(f"t1.py ({JSON}): {lines} lines, {rejected} rejected", file=sys.stderr)


if __name__ == "__main__":
    main()
