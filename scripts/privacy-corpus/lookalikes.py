"""Benign look-alikes in identifier context: digit runs that could pass for phones or cards, placed
after a word or in a field that names what they are (a model, part number, version, parcel,
order, item, customs code or other id; see words.py).

Each function returns a Probe (see pii.py) whose `probe` is the whole value,
`context` "identifier" and `ident` the kind of identifier words to place it
with; `number` is set where apps also send the value as a JSON number.
"""
from benign import digits
from pii import Probe, pick

UPPER = "ABCDEFGHJKLMNPRSTUVWXYZ"


def d(rnd, n):
    """n digits, leading zeros allowed."""
    return "".join(rnd.choice("0123456789") for _ in range(n))


def luhn_digit(body):
    total = 0
    for i, ch in enumerate(reversed(body)):
        x = int(ch)
        if i % 2 == 0:
            x = x * 2 - 9 if x > 4 else x * 2
        total += x
    return str((10 - total % 10) % 10)


def ident(text, form, kind, number=None):
    return Probe(text, text, form, number, context="identifier", ident=kind)


def part_number(rnd, fake, locale):
    """Part numbers and product codes: Bosch, Mercedes, VW, Toyota, Siemens, IKEA shapes, grouped digits."""
    form = pick(rnd, {"bosch_dashed": 12, "bosch_spaced": 10, "bosch_solid": 8, "grouped_3": 12, "dotted_ikea": 8,
                      "dashed_numeric": 10, "solid_numeric": 12, "toyota": 8, "mercedes": 6, "vw": 6, "siemens": 4,
                      "alnum": 4})
    b = "0" + rnd.choice("123456789") + d(rnd, 8)
    if form == "bosch_dashed":
        text = f"{b[:4]}-{b[4:7]}-{b[7:]}"
    elif form == "bosch_spaced":
        text = f"{b[0]} {b[1:4]} {b[4:7]} {b[7:]}"
    elif form == "bosch_solid":
        text = b
    elif form == "grouped_3":
        text = rnd.choice([f"{digits(rnd, 2)} {d(rnd, 3)} {d(rnd, 3)}", f"{digits(rnd, 3)} {d(rnd, 3)} {d(rnd, 3)}",
                           f"{digits(rnd, 1)} {d(rnd, 3)} {d(rnd, 3)} {d(rnd, 3)}"])
    elif form == "dotted_ikea":
        text = f"{d(rnd, 3)}.{d(rnd, 3)}.{d(rnd, 2)}"
    elif form == "dashed_numeric":
        text = rnd.choice([f"{d(rnd, 4)}-{d(rnd, 4)}-{d(rnd, 2)}", f"{d(rnd, 3)}-{d(rnd, 3)}-{d(rnd, 4)}",
                           f"{d(rnd, 5)}-{d(rnd, 5)}", f"{d(rnd, 2)}-{d(rnd, 4)}-{d(rnd, 4)}"])
    elif form == "solid_numeric":
        text = digits(rnd, rnd.choice([8, 9, 10, 11, 12]))
        return ident(text, form, "part", text if rnd.random() < 0.3 else None)
    elif form == "toyota":
        text = f"{d(rnd, 5)}-{d(rnd, 5)}"
    elif form == "mercedes":
        text = f"A {d(rnd, 3)} {d(rnd, 3)} {d(rnd, 2)} {d(rnd, 2)}"
    elif form == "vw":
        text = f"{rnd.randint(1, 9)}{rnd.choice(UPPER)}{rnd.randint(0, 9)} {d(rnd, 3)} {d(rnd, 3)} {rnd.choice(['', 'A', 'B', 'T', 'AB'])}".rstrip()
    elif form == "siemens":
        text = f"6ES7 {d(rnd, 3)}-{rnd.randint(1, 9)}{rnd.choice(UPPER)}{rnd.choice(UPPER)}{d(rnd, 2)}-0{rnd.choice(UPPER)}{rnd.choice(UPPER)}0"
    else:
        text = f"{rnd.choice(UPPER)}{rnd.randint(1, 9)}{rnd.choice(UPPER)}{d(rnd, 8)}"
    return ident(text, form, "part")


def build_version(rnd, fake, locale):
    """Four-part versions and builds: 16.4.27.43, 10.0.19045.3803, Android build ids."""
    form = pick(rnd, {"four_part": 40, "windows": 20, "long_build": 15, "v_prefix": 10, "android_build": 5,
                      "five_part": 5, "dotted_date": 5})
    if form == "four_part":
        text = f"{rnd.randint(1, 30)}.{rnd.randint(0, 20)}.{rnd.randint(0, 99)}.{rnd.randint(0, 9999)}"
    elif form == "windows":
        text = f"10.0.{rnd.choice([17763, 19041, 19044, 19045, 22000, 22621, 22631, 26100])}.{rnd.randint(1, 5000)}"
    elif form == "long_build":
        text = f"{rnd.randint(1, 30)}.{rnd.randint(0, 9)}.{rnd.randint(0, 9)}.{rnd.randint(10000, 99999)}"
    elif form == "v_prefix":
        text = f"v{rnd.randint(1, 20)}.{rnd.randint(0, 30)}.{rnd.randint(0, 9)}.{rnd.randint(0, 999)}"
    elif form == "android_build":
        text = f"{rnd.choice(['TP1A', 'UP1A', 'AP2A', 'SQ3A'])}.{rnd.randint(220101, 241231)}.{rnd.randint(1, 99):03d}"
    elif form == "five_part":
        text = ".".join(str(rnd.randint(0, 99)) for _ in range(5))
    else:
        text = f"{rnd.choice([2024, 2025, 2026])}.{rnd.randint(1, 12)}.{rnd.randint(1, 28)}.{rnd.randint(1, 999)}"
    return ident(text, form, "build")


def parcel_tracking(rnd, fake, locale):
    """Carriers' tracking numbers: UPS, USPS, DHL, Royal Mail, DPD, Hermes, GLS, PostNL, Yamato, SF, Correios, Pochta."""
    alnum = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"
    form = pick(rnd, {"ups": 12, "usps20": 8, "usps22": 8, "usps_grouped": 7, "dhl_express10": 10, "dhl_paket12": 7,
                      "dhl_jjd": 4, "royal_mail": 8, "royal_mail_spaced": 3, "dpd14": 7, "hermes16": 6, "gls11": 5,
                      "postnl": 4, "yamato": 4, "sf": 3, "s10": 5, "pochta14": 4})
    if form == "ups":
        text = "1Z" + "".join(rnd.choice(alnum) for _ in range(6)) + d(rnd, 10)
    elif form == "usps20":
        text = rnd.choice(["9400", "9205", "9361", "9270", "9300"]) + d(rnd, 16)
    elif form == "usps22":
        text = rnd.choice(["9400", "9205", "9361", "9270", "9300"]) + d(rnd, 18)
    elif form == "usps_grouped":
        raw = rnd.choice(["9400", "9205", "9361"]) + d(rnd, 18)
        text = " ".join(raw[i:i + 4] for i in range(0, 22, 4))
    elif form == "dhl_express10":
        text = digits(rnd, 10)
    elif form == "dhl_paket12":
        text = digits(rnd, 12)
    elif form == "dhl_jjd":
        text = "JJD" + d(rnd, 18)
    elif form == "royal_mail":
        text = f"{rnd.choice(UPPER)}{rnd.choice(UPPER)}{d(rnd, 9)}GB"
    elif form == "royal_mail_spaced":
        raw = d(rnd, 9)
        text = f"{rnd.choice(UPPER)}{rnd.choice(UPPER)} {raw[:4]} {raw[4:8]} {raw[8]}GB"
    elif form == "dpd14":
        text = "0" + d(rnd, 13)
    elif form == "hermes16":
        text = digits(rnd, 16)
    elif form == "gls11":
        text = digits(rnd, 11)
    elif form == "postnl":
        text = "3S" + "".join(rnd.choice(UPPER) for _ in range(4)) + d(rnd, 7)
    elif form == "yamato":
        text = f"{d(rnd, 4)}-{d(rnd, 4)}-{d(rnd, 4)}"
    elif form == "sf":
        text = "SF" + digits(rnd, 13)
    elif form == "s10":
        text = f"{rnd.choice(['RR', 'LX', 'CP', 'EE', 'LK', 'RB'])}{d(rnd, 9)}{rnd.choice(['DE', 'CN', 'FR', 'US', 'NL', 'BR', 'JP'])}"
    else:
        text = digits(rnd, 14)
    number = text if text.isdigit() and text[0] != "0" and len(text) <= 19 and rnd.random() < 0.3 else None
    return ident(text, form, "tracking", number)


def grouped_id(rnd, fake, locale):
    """Grouped numbers (`12 34 56 78`) as order, invoice, customer or file numbers."""
    form = pick(rnd, {"pairs4": 20, "pairs5": 15, "triples": 15, "dashed_triples": 10, "quads": 10, "dashed_pairs": 10,
                      "dotted_pairs": 10, "siret": 5, "quads3": 5})
    if form == "pairs4":
        text = " ".join(d(rnd, 2) for _ in range(4))
    elif form == "pairs5":
        text = " ".join(d(rnd, 2) for _ in range(5))
    elif form == "triples":
        text = " ".join(d(rnd, 3) for _ in range(3))
    elif form == "dashed_triples":
        text = "-".join(d(rnd, 3) for _ in range(3))
    elif form == "quads":
        text = f"{d(rnd, 4)} {d(rnd, 4)}"
    elif form == "dashed_pairs":
        text = "-".join(d(rnd, 2) for _ in range(4))
    elif form == "dotted_pairs":
        text = ".".join(d(rnd, 2) for _ in range(rnd.choice([4, 5])))
    elif form == "siret":
        text = f"{d(rnd, 3)} {d(rnd, 3)} {d(rnd, 3)} {d(rnd, 5)}"
    else:
        text = " ".join(d(rnd, 4) for _ in range(3))
    return ident(text, form, rnd.choice(["order", "id"]))


def sku_code(rnd, fake, locale):
    """SKUs and item numbers, mostly digits."""
    form = pick(rnd, {"numeric": 35, "ean_like": 20, "dashed": 15, "dashed_variant": 10, "alnum": 10, "dotted": 10})
    if form == "numeric":
        text = digits(rnd, rnd.choice([6, 7, 8, 9, 10, 11]))
        return ident(text, form, "sku", text if rnd.random() < 0.4 else None)
    if form == "ean_like":
        text = rnd.choice(["4", "8", "5", "3", "7"]) + d(rnd, 12)
        return ident(text, form, "sku", text if rnd.random() < 0.4 else None)
    text = {"dashed": f"{d(rnd, 4)}-{d(rnd, 4)}", "dashed_variant": f"{digits(rnd, 6)}-{d(rnd, 3)}",
            "alnum": f"{rnd.choice(['TS', 'HD', 'AB', 'SKU'])}-{d(rnd, 6)}-{rnd.choice(['BLK', 'RED', 'WHT', 'NVY'])}",
            "dotted": f"{d(rnd, 3)}.{d(rnd, 4)}.{d(rnd, 3)}"}[form]
    return ident(text, form, "sku")


def long_id(rnd, fake, locale):
    """Long integers and 16-digit ids (half of those Luhn-valid), as strings and as JSON numbers."""
    form = pick(rnd, {"sixteen_luhn": 30, "sixteen": 25, "long": 30, "snowflake": 15})
    if form == "sixteen_luhn":
        body = digits(rnd, 15)
        text = body + luhn_digit(body)
    elif form == "sixteen":
        text = digits(rnd, 16)
    elif form == "long":
        text = digits(rnd, rnd.choice([11, 12, 13, 14, 15]))
    else:
        text = digits(rnd, rnd.choice([18, 19]), "1")
    return ident(text, form, rnd.choice(["id", "order", "sku"]), text if rnd.random() < 0.4 else None)


def hs_code(rnd, fake, locale):
    """Customs (HS, HTS, CN, NCM) codes: 8471.30.01, 847130, 8471 30 00, 8471.30.0100."""
    heading = rnd.choice(["8471", "8517", "8528", "6109", "6203", "9503", "3304", "8504", "9403", "8443", "6403",
                          "4202", "3926", "8708", "9102", "8516"])
    sub = f"{rnd.randint(10, 99)}"
    form = pick(rnd, {"dotted8": 30, "dotted6": 15, "solid6": 10, "spaced8": 15, "hts10": 10, "solid8": 10,
                      "solid10": 5, "dotted10": 5})
    text = {"dotted8": f"{heading}.{sub}.{d(rnd, 2)}", "dotted6": f"{heading}.{sub}", "solid6": f"{heading}{sub}",
            "spaced8": f"{heading} {sub} {d(rnd, 2)}", "hts10": f"{heading}.{sub}.{d(rnd, 4)}",
            "solid8": f"{heading}{sub}{d(rnd, 2)}", "solid10": f"{heading}{sub}{d(rnd, 4)}",
            "dotted10": f"{heading}.{sub}.{d(rnd, 2)}.{d(rnd, 2)}"}[form]
    return ident(text, form, "hs", text if text.isdigit() and rnd.random() < 0.3 else None)


GENERATORS = {"part_number": part_number, "build_version": build_version, "parcel_tracking": parcel_tracking,
              "grouped_id": grouped_id, "sku_code": sku_code, "long_id": long_id, "hs_code": hs_code}
