#!/usr/bin/env python3
"""How many of Faker's own phone numbers the `privacy` stage finds (a benchmark, not a test).

Writes N events per locale of the privacy corpus, each with one
`fake.phone_number()` whole in a field with a neutral name (`properties.v`)
and the locale in `context.locale`, runs the real `sluice run --pipeline
pipelines/privacy-corpus.yaml` over them, and prints, per locale and in all:
how many Faker wrote, how many of them libphonenumber calls valid numbers of
the locale's country (and possible ones: of a length the country has), and
how many of each the stage replaced with `[phone]`.

Faker fills its locales' templates with random digits, so many of its
numbers belong to no numbering plan (`80763011349` in `ru_RU`); this shows
how far recall on Faker-labelled data can go for a detector that checks
numbers against the plans.

    python3 scripts/privacy-corpus/faker_phones.py                  # 100 per locale, seed 7
    python3 scripts/privacy-corpus/faker_phones.py --per-locale 500 --binary .build/release/sluice
"""
import argparse
import collections
import glob
import gzip
import json
import os
import subprocess
import sys
import tempfile

import phonenumbers
from faker import Faker

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from pii import REGIONS  # noqa: E402  (the corpus's 20 locales and their countries)


def classify(text, region):
    try:
        number = phonenumbers.parse(text, region)
    except phonenumbers.NumberParseException:
        return False, False
    return phonenumbers.is_valid_number(number), phonenumbers.is_possible_number(number)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-locale", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "sluice"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        events, labels = os.path.join(work, "events.ndjson"), {}
        with open(events, "w", encoding="utf-8") as out:
            for locale, region in REGIONS.items():
                fake = Faker(locale)
                fake.seed_instance(args.seed)
                for index in range(args.per_locale):
                    text = fake.phone_number()
                    message_id = f"{locale}-{index}"
                    labels[message_id] = (locale, text) + classify(text, region)
                    event = {"type": "track", "event": "form_submitted", "anonymousId": "d1", "messageId": message_id,
                             "timestamp": "2026-11-20T08:00:00Z", "context": {"locale": locale.replace("_", "-")},
                             "properties": {"v": text}}
                    out.write(json.dumps(event, ensure_ascii=False) + "\n")
        result = subprocess.run([args.binary, "run", "--pipeline", os.path.join(ROOT, "pipelines", "privacy-corpus.yaml"),
                                 "--out", os.path.join(work, "out"), "--quiet", events], stderr=subprocess.PIPE, text=True)
        if result.returncode != 0:
            sys.exit(f"faker_phones: sluice exited {result.returncode}: {result.stderr.strip()}")
        found = set()
        for path in glob.glob(os.path.join(work, "out", "**", "*.gz"), recursive=True):
            with gzip.open(path, "rt", encoding="utf-8") as f:
                for line in f:
                    event = json.loads(line)
                    if event.get("properties", {}).get("v") == "[phone]":
                        found.add(event["messageId"])
    rows = collections.defaultdict(lambda: [0] * 6)
    for message_id, (locale, _, valid, possible) in labels.items():
        hit = message_id in found
        for key in (locale, "all"):
            row = rows[key]
            row[0] += 1
            row[1] += hit
            row[2] += valid
            row[3] += valid and hit
            row[4] += possible and not valid
            row[5] += possible and not valid and hit
    print(f"{'locale':8} {'faker':>6} {'found':>7} {'valid':>6} {'found':>7} {'possible only':>14} {'found':>7}")
    for key in sorted(rows, key=lambda k: (k == "all", k)):
        n, hit, valid, valid_hit, possible, possible_hit = rows[key]
        def share(a, b):
            return f"{100 * a / b:5.1f}%" if b else "    -"
        print(f"{key:8} {n:6} {share(hit, n):>7} {valid:6} {share(valid_hit, valid):>7} {possible:14} {share(possible_hit, possible):>7}")


if __name__ == "__main__":
    main()
