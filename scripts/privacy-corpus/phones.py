"""Phones, labelled by the rule in phone_rule.py, and digit strings shaped like phones that the rule rejects.

`phone(rnd, fake, locale, branch)` makes a phone of one branch of the rule:

- `intl`: a valid number written in international form (`+CC`, `00CC`,
  `+CC (0)…`, a `tel:` URI, with an extension), of the event's country or,
  one time in three, of another of the corpus's countries;
- `valid`: a number valid for the event's country written the national way
  (Faker's own outputs that phonenumbers calls valid, national format,
  national digits, other separators, an extension);
- `placed`: a number of a possible length that no numbering plan allows
  (Faker's outputs of that kind, a valid number with its leading digits
  redrawn, in the valid number's layout, or such a number after `+CC`); it
  only counts as a phone where its placement names one, so its probe asks
  for phone context.

Some phones of the first two branches carry an identifier word nearby (an
`order_phone` field, "About my order — phone: …"): they are phones all the same.

`phone_shaped_invalid` (benign) is what the rule rejects: Faker's phone
numbers that no plan allows, and redrawn valid numbers, placed where nothing
names a phone. `id_valid_phone` (benign) is a number valid for the event's
country written as an order, part or tracking number would be, in identifier
context: the identifier vetoes it.
"""
import re

import phonenumbers
from phonenumbers import PhoneNumberFormat as PNF

import phone_rule
from pii import PHONE_REGIONS, Probe, form_encoded, pick

# Where "+44 (0)20 ..." is a common way to write a number: the trunk prefix in brackets.
TRUNK_BRACKET_REGIONS = {"GB", "DE", "FR", "NL", "SE", "AU", "IN", "TR", "IL"}
ID_NEARBY_SHARE = 0.1
# Where numbers are written with dots ("06.12.34.56.78", "415.555.0142").
DOTTED_REGIONS = {"FR", "US", "MX", "BR"}


def random_valid_number(rnd, region):
    """A number phonenumbers calls valid for the region: an example number with its tail re-drawn."""
    kind = rnd.choice([phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE])
    example = phonenumbers.example_number_for_type(region, kind)
    nsn = phonenumbers.national_significant_number(example)
    keep = min(3, len(nsn) - 4)
    for _ in range(200):
        candidate = nsn[:keep] + "".join(rnd.choice("0123456789") for _ in range(len(nsn) - keep))
        number = phonenumbers.parse(f"+{example.country_code}{candidate}")
        if phonenumbers.is_valid_number_for_region(number, region):
            return number
    return example


def national_digits(number):
    return re.sub(r"\D", "", phonenumbers.format_number(number, PNF.NATIONAL))


def json_number(rnd, candidates, region, branch, placed):
    """The first candidate digit string that is a JSON number (no leading 0) of the wanted branch, or None."""
    for text in candidates:
        text = text.lstrip("0")
        if text and phone_rule.branch(text, region, placed) == branch:
            return text
    return None


def faker_number(fake, region, accept, tries=25):
    """One of Faker's phone numbers for the locale that `accept(text)` takes, or None."""
    for _ in range(tries):
        text = fake.phone_number()
        if accept(text):
            return text
    return None


def relayout(layout, digits):
    """`layout` (a formatted number) with its digits replaced, in order, by `digits` (as many)."""
    it = iter(digits)
    return "".join(next(it) if ch.isdigit() else ch for ch in layout)


def redrawn_invalid(rnd, region, intl=False):
    """A number of a possible length for the region that no plan allows: a valid number with its
    leading digits redrawn, written in the valid number's layout (national, or international)."""
    for _ in range(400):
        valid = random_valid_number(rnd, region)
        layout = phonenumbers.format_number(valid, PNF.INTERNATIONAL if intl else PNF.NATIONAL)
        nsn = phonenumbers.national_significant_number(valid)
        digits = re.sub(r"\D", "", layout)
        if not digits.endswith(nsn):
            continue
        head = rnd.randint(1, min(3, len(nsn) - 1))
        new_nsn = "".join(rnd.choice("0123456789") for _ in range(head)) + nsn[head:]
        text = relayout(layout, digits[:len(digits) - len(nsn)] + new_nsn)
        if phone_rule.branch(text, region, False) is None and phone_rule.branch(text, region, True) == phone_rule.PLACED \
                and not phone_rule.valid_under_shared_code(text, region):
            return text
    return None


def intl_phone(rnd, fake, locale):
    region = PHONE_REGIONS[locale]
    foreign = rnd.random() < 1 / 3
    own = region
    if foreign:
        region = rnd.choice(sorted(set(PHONE_REGIONS.values()) - {own}))
    number = random_valid_number(rnd, region)
    international = phonenumbers.format_number(number, PNF.INTERNATIONAL)
    form = pick(rnd, {"faker": 15, "international": 27, "e164": 18, "intl_00": 12, "trunk_bracket": 8, "extension": 7,
                      "tel_uri": 8, "dashed": 5})
    if form == "faker" and not foreign:
        text = faker_number(fake, own, lambda t: phone_rule.international_text(t) is not None
                            and phone_rule.branch(t, own, False) == phone_rule.INTL)
        if text:
            return Probe(text, text, "intl_faker_ext" if "x" in text or "ext" in text else "intl_faker")
    if form in ("faker", "trunk_bracket") and region not in TRUNK_BRACKET_REGIONS:
        form = "international"
    elif form == "faker":
        form = "e164"
    text = {
        "international": international,
        "e164": phonenumbers.format_number(number, PNF.E164),
        "intl_00": "00" + international[1:],
        "trunk_bracket": international.replace(" ", " (0)", 1),
        "tel_uri": phonenumbers.format_number(number, PNF.RFC3966),
        "dashed": international.replace(" ", "-"),
    }.get(form)
    if form == "extension":
        number.extension = str(rnd.randint(1, 9999))
        text = phonenumbers.format_number(number, PNF.INTERNATIONAL)
    if phone_rule.branch(text, own, False) != phone_rule.INTL:   # "+44 (0)…" the library cannot read: plain form
        form, text = "international", international
    form = f"intl_{form}" + ("_foreign" if foreign else "")
    if form.startswith("intl_tel_uri"):   # the scheme is not the number: "tel:[phone]"
        return Probe(text, text[len("tel:"):], form)
    return Probe(text, text, form)


def valid_phone(rnd, fake, locale):
    region = PHONE_REGIONS[locale]
    number = random_valid_number(rnd, region)
    national = phonenumbers.format_number(number, PNF.NATIONAL)
    form = pick(rnd, {"faker": 30, "national": 30, "digits": 15, "dotted": 7, "dashed": 8, "extension": 10})
    e164_digits = phonenumbers.format_number(number, PNF.E164)[1:]
    json_candidates = [e164_digits, national_digits(number)] if rnd.random() < 0.7 else [national_digits(number), e164_digits]
    if form == "faker":
        text = faker_number(fake, region, lambda t: phone_rule.international_text(t) is None
                            and phone_rule.branch(t, region, False) == phone_rule.VALID)
        if text:
            parsed = phonenumbers.parse(text, region)
            return Probe(text, text, "valid_faker_ext" if parsed.extension else "valid_faker",
                         json_number(rnd, json_candidates, region, phone_rule.VALID, False))
        form = "national"
    if form == "dotted" and region not in DOTTED_REGIONS:
        form = "dashed"
    if form == "extension":
        number.extension = str(rnd.randint(1, 9999))
    text = {"national": national, "digits": national_digits(number),
            "dotted": re.sub(r"[\s()-]+", ".", national).strip("."), "dashed": re.sub(r"[\s()-]+", "-", national).strip("-"),
            "extension": phonenumbers.format_number(number, PNF.NATIONAL)}[form]
    if phone_rule.branch(text, region, False) != phone_rule.VALID:
        form, text = "national", national
    return Probe(text, text, f"valid_{form}", json_number(rnd, json_candidates, region, phone_rule.VALID, False))


def placed_phone(rnd, fake, locale):
    region = PHONE_REGIONS[locale]
    form = pick(rnd, {"faker": 45, "redrawn": 40, "redrawn_intl": 15})
    text = None
    if form == "faker":
        text = faker_number(fake, region, lambda t: phone_rule.branch(t, region, False) is None
                            and phone_rule.branch(t, region, True) == phone_rule.PLACED, tries=40)
        if text is None:
            form = "redrawn"
    if text is None:
        text = redrawn_invalid(rnd, region, intl=form == "redrawn_intl")
    number = json_number(rnd, [re.sub(r"\D", "", text)], region, phone_rule.PLACED, True) \
        if phone_rule.international_text(text) is None else None
    return Probe(text, text, f"placed_{form}", number, context="phone")


ENCODED_SHARE = 0.06


def phone(rnd, fake, locale, branch):
    probe = {phone_rule.INTL: intl_phone, phone_rule.VALID: valid_phone, phone_rule.PLACED: placed_phone}[branch](rnd, fake, locale)
    probe.branch = branch
    if branch != phone_rule.PLACED and probe.value == probe.probe and rnd.random() < ENCODED_SHARE:
        # In a query string or a form body: "phone=%2B44+20+7946+0958".
        encoded = form_encoded(rnd, fake, probe.probe, ["phone", "tel", "mobile", "to", "whatsapp"], probe.form)
        encoded.branch = branch
        return encoded
    if branch != phone_rule.PLACED and rnd.random() < ID_NEARBY_SHARE:
        probe.id_word, probe.context = True, "phone"
        probe.form += "+id_word"
    return probe


def phone_shaped_invalid(rnd, fake, locale):
    """Faker's phone numbers that the rule rejects (or redrawn ones), placed where nothing names a phone."""
    region = PHONE_REGIONS[locale]
    form = pick(rnd, {"faker": 70, "redrawn": 30})
    text = None
    if form == "faker":
        text = faker_number(fake, region, lambda t: phone_rule.branch(t, region, False) is None
                            and not phone_rule.valid_under_shared_code(t, region), tries=40)
        if text is not None:
            form = "faker_possible" if phone_rule.branch(text, region, True) else "faker_impossible"
    if text is None:
        form, text = "redrawn", redrawn_invalid(rnd, region)
    digits = re.sub(r"\D", "", text).lstrip("0")
    number = digits if digits and len(digits) <= 15 and "x" not in text and phone_rule.branch(digits, region, False) is None else None
    return Probe(text, text, form, number, context="none")


ID_KINDS_FOR_PHONE_DIGITS = ["order", "tracking", "part", "sku", "id"]


def id_valid_phone(rnd, fake, locale):
    """A number valid for the event's country, written as an identifier would be, in identifier context."""
    region = PHONE_REGIONS[locale]
    number = random_valid_number(rnd, region)
    national = phonenumbers.format_number(number, PNF.NATIONAL)
    form = pick(rnd, {"digits": 50, "national": 20, "dashed": 15, "e164_digits": 15})
    text = {"digits": national_digits(number), "national": national, "dashed": re.sub(r"[\s()]+", "-", national).strip("-"),
            "e164_digits": phonenumbers.format_number(number, PNF.E164)[1:]}[form]
    if phone_rule.branch(text, region, False) != phone_rule.VALID:
        form, text = "digits", national_digits(number)
    number_text = json_number(rnd, [text], region, phone_rule.VALID, False) if text.isdigit() else None
    return Probe(text, text, form, number_text, context="identifier", ident=rnd.choice(ID_KINDS_FOR_PHONE_DIGITS))


def side_by_side(rnd, fake, locale):
    """Two numbers with only a space between them (or a comma and a space): both are personal data.
    Phones of the pair are valid for the event's country (national, or international)."""
    import pii
    region = PHONE_REGIONS[locale]
    form = pick(rnd, {"phone_phone": 35, "card_card": 25, "phone_card": 20, "iban_iban": 10, "card_phone": 10})
    sep = ", " if rnd.random() < 0.25 else " "

    def a_phone(intl):
        """With only a space between two numbers, each must be one token of its own to be told apart:
        international (`+49 …` starts the second), or national without inner spaces (`030-1234567`)."""
        number = random_valid_number(rnd, region)
        if intl:
            return phonenumbers.format_number(number, PNF.INTERNATIONAL)
        national = phonenumbers.format_number(number, PNF.NATIONAL)
        if sep == " ":
            dashed = re.sub(r"[\s()-]+", "-", national).strip("-")
            national = dashed if phone_rule.branch(dashed, region, False) == phone_rule.VALID else national_digits(number)
        return national

    def a_card():
        return pii.card(rnd, fake, locale).probe if rnd.random() < 0.5 else pii.luhn_complete(rnd, rnd.choice(["4", "51", "55"]), 16)

    intl = rnd.random() < 0.5
    if form == "phone_phone":
        first, second, tokens = a_phone(intl), a_phone(intl), ("[phone]", "[phone]")
    elif form == "card_card":
        first, second, tokens = pii.luhn_complete(rnd, "4", 16), pii.luhn_complete(rnd, rnd.choice(["51", "55", "4"]), 16), ("[card]", "[card]")
    elif form == "phone_card":
        first, second, tokens = a_phone(True), pii.luhn_complete(rnd, "4", 16), ("[phone]", "[card]")
    elif form == "card_phone":
        first, second, tokens = pii.luhn_complete(rnd, rnd.choice(["4", "51"]), 16), a_phone(True), ("[card]", "[phone]")
    else:
        first, second, tokens = pii.iban.make(rnd, rnd.choice(sorted(pii.iban.BBAN_FORMATS)), 0), \
            pii.iban.make(rnd, rnd.choice(sorted(pii.iban.BBAN_FORMATS)), 0), ("[iban]", "[iban]")
    for text, token in zip((first, second), tokens):
        if token == "[phone]":
            assert phone_rule.branch(text, region, False) in (phone_rule.VALID, phone_rule.INTL), (text, region)
    value = f"{first}{sep}{second}"
    return Probe(value, value, f"{form}{'_comma' if sep != ' ' else ''}{'_intl' if intl and form == 'phone_phone' else ''}",
                 redacted=f"{tokens[0]}{sep}{tokens[1]}")
