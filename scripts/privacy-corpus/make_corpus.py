#!/usr/bin/env python3
"""Writes the privacy corpus: Segment-style events, each carrying exactly one probe, and their labels.

A probe is personal data (email, phone, card, iban, ipv4, ipv6, url_email) or
a benign look-alike (version numbers, order ids, timestamps, ...), placed in
one field: a whole value, inside free text, in an identify's traits, in the
context, in a nested array, as an object key, or as a JSON number. The label
of each event gives the probe's class, its form, locale and placement, the
path of the field (a list of keys and indexes; for a key, the key itself is
the last element), the original value, and the value expected after
redaction: for personal data the containing text with the probe replaced by
its class's token (a key becomes the token, a number the token as a string),
for a benign value the value itself.

    scripts/privacy-corpus/make_corpus.py                       # the committed corpus
    scripts/privacy-corpus/make_corpus.py --seed 7 --events 2000 --out /tmp/corpus

Same seed, events and package versions: same bytes (see README.md).
"""
import argparse
import datetime
import gzip
import json
import os
import random
import sys
import uuid

from faker import Faker

sys.dont_write_bytecode = True   # no __pycache__ left beside the corpus
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benign  # noqa: E402
import frames  # noqa: E402
import pii  # noqa: E402

PII_SHARE = 0.5
RAW = "\u0000raw-number\u0000"   # stands for a JSON number's text until the line is written

NEUTRAL_FIELDS = ["value", "note", "ref", "data", "x1", "text", "detail", "info", "field_3", "v", "label",
                  "comment", "payload", "desc", "extra"]
NEUTRAL_MAPS = ["map", "counts", "data", "x2", "by_key", "index"]
NAMED = {
    "email": (["email", "user_email", "contact_email", "billing_email", "e_mail", "login"], ["shared_with", "recipients"]),
    "url_email": (["url", "page_url", "return_url", "link", "redirect_to", "referrer"], ["latency_by_route", "hits_by_url"]),
    "phone": (["phone", "mobile", "phone_number", "tel", "contact_phone", "whatsapp"], ["contacts", "calls_by_number"]),
    "card": (["card_number", "pan", "cc_number", "card", "payment_card"], ["cards_on_file"]),
    "iban": (["iban", "bank_account", "account_iban", "payout_iban"], ["balances", "accounts"]),
    "ipv4": (["ip_address", "client_ip", "remote_addr", "server_ip", "peer_ip"], ["requests_by_ip"]),
    "ipv6": (["ip_address", "client_ip", "remote_addr", "server_ip", "peer_ip"], ["requests_by_ip"]),
    "version": (["sdk_version", "plugin_version", "build_version", "firmware"], ["installs_by_version"]),
    "semver": (["package_version", "min_version", "sdk"], ["deps"]),
    "product_code": (["model", "part_number", "product_code"], ["stock"]),
    "sku": (["sku", "variant_sku", "item"], ["cart", "quantities"]),
    "order_id": (["order_id", "order_ref", "order"], ["orders"]),
    "tracking_number": (["tracking_number", "awb", "shipment"], ["shipments"]),
    "isbn": (["isbn", "book_isbn"], ["books"]),
    "ean": (["barcode", "ean", "gtin"], ["scanned"]),
    "grouped_number": (["followers_label", "views_display", "total_display"], ["totals"]),
    "price_text": (["price_display", "total_text", "amount_label"], ["prices"]),
    "timestamp": (["created_at", "logged_at", "server_time"], ["events_by_time"]),
    "date": (["delivery_date", "due_date", "valid_until"], ["by_day"]),
    "unix_time": (["ts", "created_ts", "expires"], ["by_ts"]),
    "wkt": (["geometry", "area", "route"], ["shapes"]),
    "coordinates": (["location", "geo", "position"], ["visits"]),
    "image_name": (["image", "icon", "asset"], ["assets"]),
    "handle": (["instagram", "twitter", "mention"], ["mentions"]),
    "npm_scope": (["package", "dependency", "module"], ["bundle"]),
    "uuid": (["request_id", "item_id", "trace_id"], ["items"]),
    "hash": (["etag", "commit", "checksum"], ["files"]),
    "mac": (["mac_address", "bssid", "device_mac"], ["rssi_by_bssid"]),
    "clock_time": (["time", "opens_at", "position_in_video"], ["slots"]),
    "ratio": (["aspect_ratio", "score", "scale"], ["layouts"]),
    "cpp": (["exception", "symbol", "frame"], ["crashes"]),
    "postcode": (["postal_code", "zip", "plz"], ["by_postcode"]),
    "counter": (["user_id", "views", "bytes_sent", "tweet_id", "order_number", "request_count"], ["by_id"]),
    "amount": (["price", "revenue", "quantity", "total", "amount_micros", "value_cents"], ["by_amount"]),
    "url_encoded": (["url", "share_url", "link"], ["clicks"]),
    "user_agent": (["user_agent", "ua", "client"], ["by_agent"]),
}
# Context paths a class is found under besides context.traits.FIELD.
CONTEXT_PATHS = {
    "url_email": [["context", "page", "url"], ["context", "page", "referrer"]],
    "url_encoded": [["context", "page", "url"], ["context", "page", "referrer"]],
    "user_agent": [["context", "userAgent"]],
    "mac": [["context", "network", "bssid"], ["context", "device", "mac"]],
    "coordinates": [["context", "location", "geo"]],
    "ipv4": [["context", "network", "gateway"]],
    "ipv6": [["context", "network", "gateway"]],
}
EVENTS = ["form_submitted", "support_message_sent", "checkout_completed", "profile_updated", "item_viewed",
          "share_tapped", "search_submitted", "error_logged", "settings_changed", "order_tracked"]
SCREENS = ["Checkout", "Profile", "Support", "Search", "Settings", "Cart"]
PLACEMENTS_PII = {"value": 20, "text": 24, "traits": 14, "context": 14, "array": 12, "key": 7, "number": 16}
PLACEMENTS_BENIGN = {"value": 24, "text": 22, "traits": 10, "context": 12, "array": 14, "key": 8, "number": 10}


def choose_placement(rnd, kind, cls, probe):
    weights = dict(PLACEMENTS_PII if kind == "pii" else PLACEMENTS_BENIGN)
    if probe.number is None:
        weights.pop("number")
    elif kind == "benign":
        # Counters and amounts are numbers four times in five; barcodes, unix times and the like about one in three.
        weights["number"] = 360 if cls in benign.NUMBER_CLASSES else 40
    return pii.pick(rnd, weights)


def field_name(rnd, cls, named):
    fields, _ = NAMED[cls]
    return rnd.choice(fields) if named else rnd.choice(NEUTRAL_FIELDS)


def build(rnd, index, locale, kind, cls, probe):
    """The event and its label."""
    token = pii.TOKENS[cls] if kind == "pii" else None
    placement = choose_placement(rnd, kind, cls, probe)
    named = rnd.random() < 0.5
    field = field_name(rnd, cls, named)
    text_value, expected = probe.value, None

    def redacted(text):
        if token is None:
            return text
        assert text.count(probe.probe) == 1, (text, probe.probe)
        return text.replace(probe.probe, token)

    event = {"type": "track", "event": rnd.choice(EVENTS),
             "messageId": f"corpus-{index:05d}", "anonymousId": str(uuid.UUID(int=rnd.getrandbits(128), version=4)),
             "timestamp": (datetime.datetime(2026, 11, 20, 8) + datetime.timedelta(milliseconds=250 * index))
             .strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
             "context": {"app": {"name": "Corpus", "version": "4.2.1", "build": "421"}, "locale": locale.replace("_", "-"),
                         "library": {"name": "analytics-swift", "version": "1.5.11"}},
             "properties": {"screen": rnd.choice(SCREENS)}}
    if placement == "text":
        text_value, frame = frames.sentence(rnd, locale, probe.value)
        expected = frame.replace("{v}", redacted(probe.value))
        path = ["properties", field]
    elif placement == "traits":
        event["type"] = "identify"
        del event["event"]
        event.pop("properties")
        event["traits"] = {"plan": rnd.choice(["free", "pro", "team"])}
        if rnd.random() < 0.35:
            text_value, frame = frames.sentence(rnd, locale, probe.value)
            expected = frame.replace("{v}", redacted(probe.value))
            field, named = rnd.choice(["note", "bio", "about", "comment"]), False
        path = ["traits", field]
    elif placement == "context":
        options = CONTEXT_PATHS.get(cls, []) + [["context", "traits", field]]
        path = ["context", "page", "search"] if probe.value.startswith("?") else rnd.choice(options)
        if path[:2] == ["context", "page"]:
            event["type"], event["name"] = "page", rnd.choice(SCREENS)
            del event["event"]
    elif placement == "array":
        listname = rnd.choice(["items", "entries", "rows", "contacts", "lines"])
        size = rnd.randint(1, 3)
        at = rnd.randrange(size)
        if rnd.random() < 0.7:
            event["properties"][listname] = [{"kind": rnd.choice(["a", "b", "main"])} for _ in range(size)]
            path = ["properties", listname, at, field]
        else:
            event["properties"][listname] = ["none"] * size
            path = ["properties", listname, at]
    elif placement == "key":
        _, maps = NAMED[cls]
        path = ["properties", rnd.choice(maps) if named else rnd.choice(NEUTRAL_MAPS), probe.value]
        expected = redacted(probe.value)
    elif placement == "number":
        text_value, expected = RAW, (token if token else RAW)
        path = ["properties", field]
    else:
        path = ["properties", field]
    if expected is None:
        expected = redacted(text_value) if text_value != RAW else RAW

    # Put the value at its path (a key placement holds a small object under the key).
    parent = event
    for step in path[:-1]:
        if isinstance(parent, dict) and step not in parent:
            parent[step] = {}
        parent = parent[step]
    parent[path[-1]] = rnd.choice([1, 2, True, "viewer"]) if placement == "key" else text_value

    label = {"messageId": event["messageId"], "kind": kind, "class": cls, "form": probe.form, "locale": locale,
             "placement": placement, "field": "named" if named else "neutral", "path": path,
             "value": RAW if placement == "number" else (probe.value if placement == "key" else text_value),
             "expected": expected}
    number_text = probe.number if placement == "number" else None
    return dumps(event, number_text), dumps(label, number_text)


def dumps(obj, number_text):
    line = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    if number_text is not None:
        line = line.replace(json.dumps(RAW), number_text)
    json.loads(line)   # every line is JSON, numbers included
    return line


def plan(rnd, events):
    """The (kind, class) of each event: half personal data, the classes of each half evenly."""
    n_pii = round(events * PII_SHARE)
    pii_classes, benign_classes = list(pii.GENERATORS), list(benign.GENERATORS)
    kinds = [("pii", pii_classes[i % len(pii_classes)]) for i in range(n_pii)]
    kinds += [("benign", benign_classes[i % len(benign_classes)]) for i in range(events - n_pii)]
    rnd.shuffle(kinds)
    return kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20261120)
    ap.add_argument("--events", type=int, default=8000)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                    help="directory for events.ndjson.gz and labels.ndjson.gz (default: beside this script)")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    fakers = {}
    for n, locale in enumerate(pii.LOCALES):
        fakers[locale] = Faker(locale)
        fakers[locale].seed_instance(a.seed * 100 + n)
    os.makedirs(a.out, exist_ok=True)
    # mtime=0 and no file name in the gzip header: the same corpus is the same bytes.
    with open(os.path.join(a.out, "events.ndjson.gz"), "wb") as ev_raw, \
         open(os.path.join(a.out, "labels.ndjson.gz"), "wb") as lb_raw, \
         gzip.GzipFile(fileobj=ev_raw, mode="wb", mtime=0, filename="") as ev, \
         gzip.GzipFile(fileobj=lb_raw, mode="wb", mtime=0, filename="") as lb:
        for index, (kind, cls) in enumerate(plan(rnd, a.events), start=1):
            locale = rnd.choice(pii.LOCALES)
            generator = (pii.GENERATORS if kind == "pii" else benign.GENERATORS)[cls]
            probe = generator(rnd, fakers[locale], locale)
            event_line, label_line = build(rnd, index, locale, kind, cls, probe)
            ev.write(event_line.encode() + b"\n")
            lb.write(label_line.encode() + b"\n")
    print(f"make_corpus: {a.events} events in {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
