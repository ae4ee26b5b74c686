"""Personal data as apps receive it: each function returns a Probe for one locale.

A Probe's `value` is the text as it sits in the field (a URL around an encoded
email, an address with its port) and `probe` the part of it that is personal
data, which redaction must replace whole; `number`, for phones and cards, is
the JSON number text the same value has when an app stores it as a number.
`form` names how the value was written, so misses can be counted by shape.
Phones are in phones.py, labelled by the rule in phone_rule.py.
"""
import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import quote, quote_plus

from faker.providers.credit_card import Provider as CreditCardProvider

import iban

REGIONS = {
    "en_US": "US", "en_GB": "GB", "en_IN": "IN", "en_AU": "AU", "de_DE": "DE", "fr_FR": "FR", "es_ES": "ES",
    "es_MX": "MX", "it_IT": "IT", "nl_NL": "NL", "pt_BR": "BR", "pt_PT": "PT", "pl_PL": "PL", "ru_RU": "RU",
    "ja_JP": "JP", "zh_CN": "CN", "ko_KR": "KR", "tr_TR": "TR", "sv_SE": "SE", "cs_CZ": "CZ",
}
LOCALES = list(REGIONS)
# The phone classes and the identifier look-alikes also come from Hebrew and Arabic locales.
PHONE_REGIONS = dict(REGIONS, he_IL="IL", ar_AE="AE")
PHONE_LOCALES = list(PHONE_REGIONS)


@dataclass
class Probe:
    value: str
    probe: str
    form: str
    number: str = None
    context: str = "any"   # what its placement must name: any, phone, identifier, none
    ident: str = None      # for identifier context: the kind of identifier (words.ID_KEYWORDS)
    branch: str = None     # for a phone: which branch of the rule makes it one (phone_rule)
    id_word: bool = False  # for a phone: an identifier word is nearby too
    plain: str = None      # the probe as written before form- or percent-encoding, when it was encoded
    redacted: str = None   # the value after redaction, when it holds more than one probe


def pick(rnd, weighted):
    """One key of a {key: weight} dict."""
    total = sum(weighted.values())
    x = rnd.random() * total
    for key, weight in weighted.items():
        x -= weight
        if x < 0:
            return key
    return key


# ---------------------------------------------------------------- email

TLDS = {"de_DE": "de", "fr_FR": "fr", "es_ES": "es", "it_IT": "it", "nl_NL": "nl", "pt_PT": "pt", "pl_PL": "pl",
        "ru_RU": "xn--p1ai", "ja_JP": "jp", "zh_CN": "cn", "ko_KR": "kr", "tr_TR": "com.tr", "sv_SE": "se",
        "cs_CZ": "cz", "pt_BR": "com.br", "es_MX": "com.mx", "en_GB": "co.uk", "en_AU": "com.au", "en_IN": "in"}
IDN_WORDS = ["müller", "bücher", "café-crème", "ñandú", "łódź", "žluťoučký", "ölçü", "råd", "straßenbahn",
             "日本語", "例え", "中文网", "한국", "пример", "почта", "españa", "zürich", "kø"]


def idn_domain(rnd, fake, locale):
    """A domain with a non-ASCII label, written in punycode (xn--...), as mail systems carry it."""
    word = re.sub(r"[\s'.]", "", fake.last_name().lower())
    if word.isascii():
        word = rnd.choice(IDN_WORDS)
    label = word.encode("idna").decode("ascii")
    return f"{label}.{TLDS.get(locale, rnd.choice(['com', 'net', 'org']))}"


def email_address(rnd, fake, locale):
    form = pick(rnd, {"faker": 25, "free": 18, "company": 18, "idn": 12, "plus_tag": 8, "mixed_case": 5,
                      "subdomain": 7, "symbols": 7})
    user = fake.user_name()
    if form == "faker":
        address = fake.email()
    elif form == "free":
        address = fake.free_email()
    elif form == "company":
        address = fake.company_email()
    elif form == "idn":
        address = f"{user}@{idn_domain(rnd, fake, locale)}"
    elif form == "plus_tag":
        address = f"{user}+{rnd.choice(['news', 'shop', 'test', 'amazon', 'work2'])}@{fake.free_email_domain()}"
    elif form == "mixed_case":
        address = f"{user.title()}@{fake.domain_name().capitalize()}"
    elif form == "subdomain":
        address = f"{user}@{rnd.choice(['mail', 'mx', 'corp', 'eu', 'student'])}.{fake.domain_name()}"
        if rnd.random() < 0.3:
            address = f"{user}@{fake.domain_word()}.{rnd.choice(['photography', 'museum', 'solutions', 'co.uk', 'gov.au'])}"
    else:
        sep = rnd.choice(["_", "-", ".", ""])
        first = fake.first_name().lower()
        if not (first.isascii() and first.isalpha()):   # "maria alice", "josé", "陽一"
            first = user
        address = f"{first}{sep}{rnd.randint(1, 9999)}@{fake.free_email_domain()}"
    return address, form


# Local parts with letters beyond ASCII (RFC 6531), and domains written in Unicode.
UNICODE_LOCALS = ["josé.garcía", "jörg", "françois.müller", "łukasz.żółć", "çağrı.yılmaz", "åsa.ström", "jiří.novák",
                  "иван.петров", "ana.conceição", "søren", "zoë.o'brien", "björn_ängström", "ömer", "renée.dubois",
                  "maría-josé", "gülşen", "дарья", "zdeněk.dvořák", "małgorzata", "núñez.íñigo"]
UNICODE_DOMAINS = ["müller.de", "bücher.example", "пример.рф", "café.fr", "españa.es", "zürich.ch", "straße.de",
                   "ñandú.com.mx", "łódź.pl", "почта.рф"]
CJK_LANGUAGES = ("ja", "zh", "ko")


def unicode_email(rnd, fake):
    """An address with Unicode letters in its local part (and one time in two in its domain)."""
    local = re.sub(r"[\s']", "", f"{fake.first_name()}.{fake.last_name()}".lower())
    if local.isascii() or not all(ch.isalpha() or ch in "._-" for ch in local):
        local = rnd.choice(UNICODE_LOCALS).replace("'", "")
    domain = rnd.choice(UNICODE_DOMAINS) if rnd.random() < 0.5 else fake.free_email_domain()
    return f"{local}@{domain}"


def email(rnd, fake, locale):
    address, form = email_address(rnd, fake, locale)
    # Not in the CJK locales, whose sentences glue the value to letters of their own.
    if not locale.startswith(CJK_LANGUAGES) and rnd.random() < 0.1:
        address = unicode_email(rnd, fake)
        return Probe(address, address, "unicode_domain" if not address.split("@")[1].isascii() else "unicode_local")
    if rnd.random() < 0.06:
        url = f"https://{fake.domain_name()}/unsubscribe?email={address}&list={rnd.randint(1, 40)}"
        return Probe(url, address, "in_url")
    return Probe(address, address, form)


def url_email(rnd, fake, locale):
    address, _ = email_address(rnd, fake, locale)
    encoded = quote(address, safe="")
    host = fake.domain_name()
    form = pick(rnd, {"query": 40, "path": 20, "search": 20, "fragment": 5, "double_encoded": 8, "bare": 7})
    token = fake.sha1()[:rnd.choice([12, 16, 24])]
    if form == "query":
        key = rnd.choice(["email", "e", "user", "login", "recipient", "mail"])
        value = f"https://{host}/{rnd.choice(['account/verify', 'login', 'signup', 'reset-password', 'newsletter/confirm'])}?{key}={encoded}&token={token}"
    elif form == "path":
        value = f"https://{host}/api/v2/users/{encoded}/{rnd.choice(['orders', 'profile', 'settings'])}"
    elif form == "search":
        value = f"?{rnd.choice(['email', 'customer_email', 'u'])}={encoded}&utm_source=newsletter&utm_medium=email"
    elif form == "fragment":
        value = f"https://{host}/app#/invite?to={encoded}"
    elif form == "double_encoded":
        inner = quote(f"https://{fake.domain_name()}/signup?email={encoded}", safe="")
        encoded = quote(encoded, safe="")
        value = f"https://{host}/r?redirect={inner}"
        return Probe(value, encoded, form)
    else:
        value = encoded
    return Probe(value, encoded, form)


# ---------------------------------------------------------------- card

# Every card type of Faker's credit_card provider (its prefixes and lengths; the
# locales' providers differ in which types they offer), Maestro also at 16 and
# 19 digits, and Russia's Mir.
CARD_TYPES = {name: (card.prefixes, card.length) for name, card in CreditCardProvider.credit_card_types.items()
              if name not in ("visa", "jcb")}
CARD_TYPES["maestro16"] = (["5018", "5020", "5038", "6304", "6759", "6761"], 16)
CARD_TYPES["maestro19"] = (["5018", "5020", "5038", "6304", "6759", "6761"], 19)
CARD_TYPES["mir"] = (["2200", "2201", "2202", "2203", "2204"], 16)
GROUPS = {12: [4, 4, 4], 13: [4, 4, 5], 14: [4, 6, 4], 15: [4, 6, 5], 16: [4, 4, 4, 4], 19: [4, 4, 4, 4, 3]}


def luhn_complete(rnd, prefix, length):
    body = prefix + "".join(rnd.choice("0123456789") for _ in range(length - len(prefix) - 1))
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return body + str((10 - total % 10) % 10)


def grouped_digits(digits):
    sizes, parts, at = GROUPS[len(digits)], [], 0
    for size in sizes:
        parts.append(digits[at:at + size])
        at += size
    return parts


# Form- and percent-encoded values: in a query string or a form body, spaces become `+` or `%20`
# and `+` becomes `%2B`; the encoded text is the probe, redacted where it stands.
ENCODED_SHARE = 0.08


def form_encoded(rnd, fake, text, keys, form):
    style = rnd.choice(["plus", "percent"])
    encoded = quote_plus(text) if style == "plus" else quote(text, safe="")
    query = f"{rnd.choice(keys)}={encoded}&{rnd.choice(['save=1', 'consent=true', 'source=app', 'step=review'])}"
    where = pick(rnd, {"url": 45, "search": 20, "body": 35})
    value = {"url": f"https://{fake.domain_name()}/{rnd.choice(['checkout', 'contact', 'api/v1/profile', 'signup'])}?{query}",
             "search": f"?{query}", "body": query}[where]
    return Probe(value, encoded, f"{form}_form_{style}_{where}", plain=text)


def card(rnd, fake, locale):
    kind = rnd.choice(sorted(CARD_TYPES))
    prefixes, length = CARD_TYPES[kind]
    prefix = "".join(rnd.choice("123456789") if ch == "%" else rnd.choice("0123456789") if ch == "#" else ch
                     for ch in rnd.choice(prefixes))
    digits = luhn_complete(rnd, prefix, length)
    layout = pick(rnd, {"solid": 50, "spaced": 35, "dashed": 15})
    text = digits
    if layout != "solid":
        text = (" " if layout == "spaced" else "-").join(grouped_digits(digits))
    if rnd.random() < ENCODED_SHARE:
        return form_encoded(rnd, fake, " ".join(grouped_digits(digits)), ["card", "card_number", "cc", "pan"], kind)
    # A number cannot start with 0 (Faker's Maestro 0604...): such a card is only ever text.
    return Probe(text, text, f"{kind}_{layout}", digits if digits[0] != "0" else None)


# ---------------------------------------------------------------- iban

IBAN_LOCALES = {"en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pt_BR", "pt_PT", "pl_PL", "tr_TR", "cs_CZ"}


def iban_number(rnd, fake, locale):
    source = "registry"
    if locale in IBAN_LOCALES and rnd.random() < 0.5:
        value, source = fake.iban(), "faker"
        if not iban.is_valid(value):
            raise ValueError(f"Faker {locale} made an invalid IBAN {value}")
    else:
        value = iban.make(rnd, rnd.choice(sorted(iban.BBAN_FORMATS)), 0.25 if rnd.random() < 0.4 else 0)
    if rnd.random() < ENCODED_SHARE:
        return form_encoded(rnd, fake, iban.grouped(value), ["iban", "account", "IBAN", "payout_iban"], f"{value[:2]}_{source}")
    layout = "grouped" if rnd.random() < 0.45 else "solid"
    text = iban.grouped(value) if layout == "grouped" else value
    return Probe(text, text, f"{value[:2]}_{layout}_{source}")


# ---------------------------------------------------------------- ip

def ipv4(rnd, fake, locale):
    form = pick(rnd, {"public": 45, "any": 20, "private": 15, "with_port": 10, "in_url": 10})
    address = {"public": fake.ipv4_public, "private": fake.ipv4_private}.get(form, fake.ipv4)()
    if form == "with_port":
        return Probe(f"{address}:{rnd.choice([80, 443, 8080, 3000, 5432, 51820])}", address, form)
    if form == "in_url":
        return Probe(f"http://{address}:{rnd.choice([80, 8080, 8443])}/{rnd.choice(['admin', 'health', 'api/status'])}", address, form)
    return Probe(address, address, form)


def global_v6(rnd):
    groups = [rnd.choice([0x2001, 0x2a00, 0x2a02, 0x2600, 0x2604, 0x2406, 0x2409, 0x2804, 0x2c0f])]
    groups += [rnd.randrange(0x10000) for _ in range(7)]
    start = rnd.randrange(2, 6)
    for i in range(start, start + rnd.choice([1, 2, 3, 4])):
        if i < 8:
            groups[i] = 0
    return ipaddress.IPv6Address(b"".join(g.to_bytes(2, "big") for g in groups))


def ipv6(rnd, fake, locale):
    form = pick(rnd, {"faker": 25, "compressed": 30, "exploded": 8, "link_local": 10, "link_local_zone": 5,
                      "ula": 7, "mapped_v4": 5, "uppercase": 5, "bracket_port": 5})
    if form == "faker":
        text = fake.ipv6()
    elif form in ("link_local", "link_local_zone"):
        tail = [rnd.randrange(0x10000) for _ in range(4)]
        text = str(ipaddress.IPv6Address("fe80::" + ":".join(f"{g:x}" for g in tail)))
        if form == "link_local_zone":
            text += "%" + rnd.choice(["en0", "eth0", "wlan0", "utun3", "12"])
    elif form == "ula":
        text = str(ipaddress.IPv6Address(bytes([0xfd]) + bytes(rnd.randrange(256) for _ in range(7)) + bytes(7) + bytes([rnd.randrange(1, 256)])))
    elif form == "mapped_v4":
        text = "::ffff:" + fake.ipv4_public()
    else:
        address = global_v6(rnd)
        text = {"compressed": address.compressed, "exploded": address.exploded,
                "uppercase": address.compressed.upper()}.get(form, address.compressed)
        if form == "bracket_port":
            return Probe(f"[{text}]:{rnd.choice([443, 8443, 853, 9000])}", text, form)
    return Probe(text, text, form)


GENERATORS = {"email": email, "url_email": url_email, "card": card, "iban": iban_number,
              "ipv4": ipv4, "ipv6": ipv6}
TOKENS = {"email": "[email]", "url_email": "[email]", "phone": "[phone]", "card": "[card]", "iban": "[iban]",
          "ipv4": "[ip]", "ipv6": "[ip]"}
