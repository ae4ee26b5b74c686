#!/usr/bin/env python3
"""Writes the privacy corpus: Segment-style events, each carrying exactly one probe, and their labels.

A probe is personal data (email, phone, card, iban, ipv4, ipv6, url_email) or
a benign look-alike (version numbers, order ids, timestamps, part numbers
after "P/N", ...), placed in one field: a whole value, inside free text, in an
identify's traits, in the context, in a nested array, as an object key, or as
a JSON number, with what its placement must name (a phone, an identifier, or
nothing). Phones are labelled by issue 36's rule (phone_rule.py): each
phone's branch is checked against the rule as the event is written, and no
benign probe outside identifier context is a phone under it. The label
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
import collections
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
import lookalikes  # noqa: E402
import phone_rule  # noqa: E402
import phones  # noqa: E402
import pii  # noqa: E402
import words  # noqa: E402

RAW = "\u0000raw-number\u0000"   # stands for a JSON number's text until the line is written

NEUTRAL_FIELDS = ["value", "note", "ref", "data", "x1", "text", "detail", "info", "field_3", "v", "label",
                  "comment", "payload", "desc", "extra"]
NEUTRAL_MAPS = ["map", "counts", "data", "x2", "by_key", "index"]
TEXT_FIELDS = ["message", "note", "comment", "text", "body", "description", "remarks", "value", "detail"]
NAMED = {
    "email": (["email", "user_email", "contact_email", "billing_email", "e_mail", "login"], ["shared_with", "recipients"]),
    "url_email": (["url", "page_url", "return_url", "link", "redirect_to", "referrer"], ["latency_by_route", "hits_by_url"]),
    "phone": (["phone", "mobile", "phone_number", "tel", "contact_phone", "whatsapp"], ["contacts", "calls_by_number"]),
    "side_by_side": (["numbers", "contact_numbers", "payment_details", "accounts_text"], ["pairs"]),
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
# Share of each class in the corpus (11,000 events: about 570 per class of personal data besides
# phones, 1,650 phones by the rule's three branches, 137 per benign class of the first make and
# 200 to 300 per class of look-alikes in identifier context and of phone-shaped strings).
CLASS_WEIGHTS = {**{("pii", cls): 570 for cls in pii.GENERATORS},
                 ("pii", "phone:valid"): 600, ("pii", "phone:intl"): 550, ("pii", "phone:placed"): 500,
                 ("pii", "side_by_side"): 200,
                 **{("benign", cls): 137 for cls in benign.GENERATORS},
                 ("benign", "part_number"): 260, ("benign", "build_version"): 200, ("benign", "parcel_tracking"): 260,
                 ("benign", "grouped_id"): 220, ("benign", "sku_code"): 200, ("benign", "long_id"): 240,
                 ("benign", "hs_code"): 160, ("benign", "id_valid_phone"): 300, ("benign", "phone_shaped_invalid"): 250}
OLD_BENIGN = set(benign.GENERATORS)
REDRAWN = collections.Counter()   # benign values of the first make drawn again: phones under the rule
NEW_BENIGN = dict(lookalikes.GENERATORS, id_valid_phone=phones.id_valid_phone, phone_shaped_invalid=phones.phone_shaped_invalid)
# Benign classes whose free text names nothing (no contact words either).
NEUTRAL_TEXT_CLASSES = {"phone_shaped_invalid"}
# Phones and the classes made for the phone rule come from the 22 locales, Hebrew and Arabic twice as
# often as the others (their keywords and glued prepositions are the rarest shapes).
PHONE_LOCALE_DRAW = pii.PHONE_LOCALES + ["he_IL", "ar_AE"]
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
    if probe.context in ("phone", "identifier"):   # a map's keys are named by nothing of their own
        weights.pop("key")
    return pii.pick(rnd, weights)


class Place:
    """How a probe is placed: the field name, the list name, the text around it, and what they name."""

    def __init__(self, rnd, locale, cls, probe):
        self.rnd, self.locale, self.cls, self.probe = rnd, locale, cls, probe
        self.lang = frames.language(locale)
        context = probe.context
        if context == "any":
            context = "named" if rnd.random() < 0.5 else "none"
        self.context = context
        self.names_phone = False   # what the placement chosen last names
        self.names_id = False
        self.named = False         # whether its field has a name of the class's own (old classes too)

    def field(self):
        rnd, probe, context = self.rnd, self.probe, self.context
        self.names_phone = self.names_id = False
        self.named = context != "none"
        if context == "phone" or (context == "named" and self.cls == "phone"):
            self.names_phone = True
            if probe.id_word and rnd.random() < 0.5:
                self.names_id = True
                return rnd.choice(words.PHONE_FIELDS_WITH_ID_WORD)
            return rnd.choice(words.phone_fields(self.lang))
        if context == "identifier":
            self.names_id = True
            return rnd.choice(words.ID_FIELDS[probe.ident])
        if context == "named":
            return rnd.choice(NAMED[self.cls][0])
        return rnd.choice(NEUTRAL_FIELDS)

    def list_name(self):
        rnd, probe = self.rnd, self.probe
        self.names_phone = self.names_id = False
        self.named = self.context in ("phone", "identifier")
        if self.context == "phone":
            self.names_phone = True
            return rnd.choice(words.PHONE_LISTS)
        if self.context == "identifier":
            self.names_id = True
            return rnd.choice(words.ID_LISTS[probe.ident])
        return rnd.choice(["items", "entries", "rows", "lines", "values"])

    def map_name(self):
        self.names_phone = self.names_id = False
        self.named = self.context == "named"
        return self.rnd.choice(NAMED[self.cls][1]) if self.context == "named" else self.rnd.choice(NEUTRAL_MAPS)

    def text(self, value):
        """(the text with `value` in it, its frame)."""
        rnd, probe, locale = self.rnd, self.probe, self.locale
        self.names_phone = self.names_id = False
        # A phone alone after a phone keyword; a URL or form body holding one goes in a plain sentence.
        if self.context == "phone" or (self.cls == "phone" and probe.value == probe.probe and rnd.random() < 0.55):
            self.names_phone, self.names_id = True, probe.id_word
            return frames.phone_sentence(rnd, locale, value, id_word=probe.id_word)
        if self.context == "identifier":
            self.names_id = True
            keywords = words.ID_KEYWORDS[probe.ident]
            keyword = rnd.choice(keywords["en"] if rnd.random() < 0.2 else keywords[self.lang])
            return frames.id_sentence(rnd, locale, keyword, value)
        if self.context == "none" and self.cls in NEUTRAL_TEXT_CLASSES:
            return frames.sentence(rnd, locale, value, frames.NEUTRAL_FRAMES)
        return frames.sentence(rnd, locale, value)

    def names(self):
        return "phone+identifier" if self.names_phone and self.names_id else "phone" if self.names_phone \
            else "identifier" if self.names_id else "none"


def country_fields(rnd, locale):
    """Where the event says its country: the locale (mostly), also or instead `context.location.country`."""
    region = pii.PHONE_REGIONS[locale]
    source = pii.pick(rnd, {"locale": 75, "both": 15, "country": 10})
    country = None
    if source != "locale":
        country = region if rnd.random() < 0.7 else words.COUNTRY_NAMES[region]
    return source, country


def build(rnd, index, locale, kind, cls, probe):
    """The event and its label."""
    token = pii.TOKENS.get(cls) if kind == "pii" else None
    placement = choose_placement(rnd, kind, cls, probe)
    place = Place(rnd, locale, cls, probe)
    text_value, expected = probe.value, None

    def redacted(text):
        if kind != "pii":
            return text
        if probe.redacted is not None:   # more than one probe in the value
            assert text.count(probe.value) == 1, (text, probe.value)
            return text.replace(probe.value, probe.redacted)
        assert text.count(probe.probe) == 1, (text, probe.probe)
        return text.replace(probe.probe, token)

    source, country = country_fields(rnd, locale)
    event = {"type": "track", "event": rnd.choice(EVENTS),
             "messageId": f"corpus-{index:05d}", "anonymousId": str(uuid.UUID(int=rnd.getrandbits(128), version=4)),
             "timestamp": (datetime.datetime(2026, 11, 20, 8) + datetime.timedelta(milliseconds=250 * index))
             .strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
             "context": {"app": {"name": "Corpus", "version": "4.2.1", "build": "421"}, "locale": locale.replace("_", "-"),
                         "library": {"name": "analytics-swift", "version": "1.5.11"}},
             "properties": {"screen": rnd.choice(SCREENS)}}
    if source == "country":
        del event["context"]["locale"]
    if country is not None:
        event["context"]["location"] = {"country": country}
    if placement == "text":
        text_value, frame = place.text(probe.value)
        expected = frame.replace("{v}", redacted(probe.value))
        path = ["properties", rnd.choice(TEXT_FIELDS)]
    elif placement == "traits":
        event["type"] = "identify"
        del event["event"]
        event.pop("properties")
        event["traits"] = {"plan": rnd.choice(["free", "pro", "team"])}
        if rnd.random() < 0.35:
            text_value, frame = place.text(probe.value)
            expected = frame.replace("{v}", redacted(probe.value))
            field = rnd.choice(["note", "bio", "about", "comment"])   # named by its text alone
        else:
            field = place.field()
        path = ["traits", field]
    elif placement == "context":
        field = place.field()
        options = CONTEXT_PATHS.get(cls, []) + [["context", "traits", field]]
        path = ["context", "page", "search"] if probe.value.startswith("?") else rnd.choice(options)
        if path[-1] != field:   # a context path of its own names nothing
            place.names_phone = place.names_id = place.named = False
        if path[:2] == ["context", "page"]:
            event["type"], event["name"] = "page", rnd.choice(SCREENS)
            del event["event"]
    elif placement == "array":
        size = rnd.randint(1, 3)
        at = rnd.randrange(size)
        if rnd.random() < 0.7:
            listname = rnd.choice(["items", "entries", "rows", "contacts", "lines"])
            event["properties"][listname] = [{"kind": rnd.choice(["a", "b", "main"])} for _ in range(size)]
            path = ["properties", listname, at, place.field()]
        else:
            listname = place.list_name()
            event["properties"][listname] = ["none"] * size
            path = ["properties", listname, at]
    elif placement == "key":
        path = ["properties", place.map_name(), probe.value]
        expected = redacted(probe.value)
    elif placement == "number":
        text_value, expected = RAW, (token if token else RAW)
        path = ["properties", place.field()]
    else:
        path = ["properties", place.field()]
    if expected is None:
        expected = redacted(text_value) if text_value != RAW else RAW

    # Put the value at its path (a key placement holds a small object under the key).
    parent = event
    for step in path[:-1]:
        if isinstance(parent, dict) and step not in parent:
            parent[step] = {}
        parent = parent[step]
    parent[path[-1]] = rnd.choice([1, 2, True, "viewer"]) if placement == "key" else text_value

    names = place.names()
    if probe.context == "phone":
        assert place.names_phone, (cls, probe, placement)
    if probe.context == "identifier":
        assert place.names_id and not place.names_phone, (cls, probe, placement)
    if probe.context == "none":
        assert names == "none", (cls, probe, placement)
    region = pii.PHONE_REGIONS[locale]
    probe_text = probe.number if placement == "number" else (probe.plain or probe.probe)
    rule = phone_rule.branch(probe_text, region, place.names_phone)
    if cls == "phone":
        assert rule == probe.branch, (probe, placement, rule, names)
    elif kind == "benign" and probe.context != "identifier" and phone_rule.digit_run(probe_text):
        assert rule is None, (cls, probe, placement, rule, names)

    label = {"messageId": event["messageId"], "kind": kind, "class": cls, "form": probe.form, "locale": locale,
             "placement": placement, "field": "named" if place.named or names != "none" else "neutral", "context": names,
             "country_from": source if country is None or country == region else source + "_name",
             "path": path,
             "value": RAW if placement == "number" else (probe.value if placement == "key" else text_value),
             "expected": expected}
    if cls == "phone":
        label["branch"] = probe.branch
    elif kind == "benign" and rule is not None:
        label["phone_rule"] = rule   # what the rule would call it without its identifier context
    number_text = probe.number if placement == "number" else None
    return dumps(event, number_text), dumps(label, number_text)


def dumps(obj, number_text):
    line = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    if number_text is not None:
        line = line.replace(json.dumps(RAW), number_text)
    json.loads(line)   # every line is JSON, numbers included
    return line


def plan(rnd, events):
    """The (kind, class) of each event, in proportion to CLASS_WEIGHTS, shuffled."""
    total = sum(CLASS_WEIGHTS.values())
    shares = {key: events * weight / total for key, weight in CLASS_WEIGHTS.items()}
    counts = {key: int(share) for key, share in shares.items()}
    for key in sorted(shares, key=lambda k: counts[k] - shares[k])[:events - sum(counts.values())]:
        counts[key] += 1
    kinds = [key for key, count in counts.items() for _ in range(count)]
    rnd.shuffle(kinds)
    return kinds


def generate(rnd, fakers, kind, cls):
    """(locale, probe) of one event: phones by branch; benign values of the first make that are bare digit
    runs the rule would call a phone outside identifier context are drawn again."""
    if cls.startswith("phone:"):
        locale = rnd.choice(PHONE_LOCALE_DRAW)
        return locale, "phone", phones.phone(rnd, fakers[locale], locale, cls.split(":")[1])
    if cls == "side_by_side":
        locale = rnd.choice(PHONE_LOCALE_DRAW)
        return locale, cls, phones.side_by_side(rnd, fakers[locale], locale)
    if kind == "pii":
        locale = rnd.choice(pii.LOCALES)
        return locale, cls, pii.GENERATORS[cls](rnd, fakers[locale], locale)
    if cls in OLD_BENIGN:
        locale = rnd.choice(pii.LOCALES)
        region = pii.REGIONS[locale]
        for _ in range(100):
            probe = benign.GENERATORS[cls](rnd, fakers[locale], locale)
            if not any(text is not None and phone_rule.digit_run(text)
                       and (phone_rule.branch(text, region, False) or phone_rule.valid_under_shared_code(text, region))
                       for text in (probe.probe, probe.number)):
                return locale, cls, probe
            REDRAWN[cls] += 1
        raise ValueError(f"{cls}: no value in 100 draws that is not a phone of {region}")
    locale = rnd.choice(PHONE_LOCALE_DRAW)
    return locale, cls, NEW_BENIGN[cls](rnd, fakers[locale], locale)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20261120)
    ap.add_argument("--events", type=int, default=11000)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                    help="directory for events.ndjson.gz and labels.ndjson.gz (default: beside this script)")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    fakers = {}
    for n, locale in enumerate(pii.PHONE_LOCALES):
        fakers[locale] = Faker(locale)
        fakers[locale].seed_instance(a.seed * 100 + n)
    os.makedirs(a.out, exist_ok=True)
    # mtime=0 and no file name in the gzip header: the same corpus is the same bytes.
    with open(os.path.join(a.out, "events.ndjson.gz"), "wb") as ev_raw, \
         open(os.path.join(a.out, "labels.ndjson.gz"), "wb") as lb_raw, \
         gzip.GzipFile(fileobj=ev_raw, mode="wb", mtime=0, filename="") as ev, \
         gzip.GzipFile(fileobj=lb_raw, mode="wb", mtime=0, filename="") as lb:
        for index, (kind, cls) in enumerate(plan(rnd, a.events), start=1):
            locale, cls, probe = generate(rnd, fakers, kind, cls)
            event_line, label_line = build(rnd, index, locale, kind, cls, probe)
            ev.write(event_line.encode() + b"\n")
            lb.write(label_line.encode() + b"\n")
    print(f"make_corpus: {a.events} events in {a.out}; benign values drawn again as phones under the rule: "
          + (", ".join(f"{cls} {n}" for cls, n in REDRAWN.most_common()) or "none"), file=sys.stderr)


if __name__ == "__main__":
    main()
