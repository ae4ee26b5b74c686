"""IBANs of every registered country, built from each country's BBAN format with real check digits.

The formats are those of the SWIFT IBAN registry: `n` digits, `a` upper-case
letters, `c` letters or digits. Faker's `iban()` covers a dozen countries (and
some of its locales fall back to GB with a wrong length), so the corpus also
builds IBANs for the rest, short ones (NO, BE) and letter-heavy ones (MT, QA,
KW, LC, JO, BH, GI) included.
"""
import re
import string

# country: BBAN format (the IBAN's length is 4 + the BBAN's).
BBAN_FORMATS = {
    "AD": "4n4n12c", "AE": "3n16n", "AL": "8n16c", "AT": "5n11n", "AZ": "4a20c", "BA": "3n3n8n2n",
    "BE": "3n7n2n", "BG": "4a4n2n8c", "BH": "4a14c", "BR": "8n5n10n1a1c", "BY": "4c4n16c", "CH": "5n12c",
    "CR": "4n14n", "CY": "3n5n16c", "CZ": "4n6n10n", "DE": "8n10n", "DK": "4n9n1n", "DO": "4c20n",
    "EE": "2n2n11n1n", "EG": "4n4n17n", "ES": "4n4n1n1n10n", "FI": "3n11n", "FO": "4n9n1n",
    "FR": "5n5n11c2n", "GB": "4a6n8n", "GE": "2a16n", "GI": "4a15c", "GL": "4n9n1n", "GR": "3n4n16c",
    "GT": "4c20c", "HR": "7n10n", "HU": "3n4n1n15n1n", "IE": "4a6n8n", "IL": "3n3n13n", "IQ": "4a3n12n",
    "IS": "4n2n6n10n", "IT": "1a5n5n12c", "JO": "4a4n18c", "KW": "4a22c", "KZ": "3n13c", "LB": "4n20c",
    "LC": "4a24c", "LI": "5n12c", "LT": "5n11n", "LU": "3n13c", "LV": "4a13c", "MC": "5n5n11c2n",
    "MD": "2c18c", "ME": "3n13n2n", "MK": "3n10c2n", "MR": "5n5n11n2n", "MT": "4a5n18c",
    "MU": "4a2n2n12n3n3a", "NL": "4a10n", "NO": "4n6n1n", "PK": "4a16c", "PL": "8n16n", "PS": "4a21c",
    "PT": "4n4n11n2n", "QA": "4a21c", "RO": "4a16c", "RS": "3n13n2n", "SA": "2n18c", "SC": "4a2n2n16n3a",
    "SE": "3n16n1n", "SI": "5n8n2n", "SK": "4n6n10n", "SM": "1a5n5n12c", "ST": "8n11n2n", "SV": "4a20n",
    "TL": "3n14n2n", "TN": "2n3n13n2n", "TR": "5n1n16c", "UA": "6n19c", "VA": "3n15n", "VG": "4a16n",
    "XK": "4n10n2n",
    # Registered since 2021.
    "BI": "5n5n11n2n", "DJ": "5n5n11n2n", "FK": "2a12n", "HN": "4a20n", "LY": "3n3n15n", "MN": "4n12n",
    "NI": "4a20n", "OM": "3n16c", "RU": "9n5n15c", "SD": "2n12n", "SO": "4n3n12n", "YE": "4a4n18c",
}

LENGTHS = {country: 4 + sum(int(n) for n in re.findall(r"\d+", bban)) for country, bban in BBAN_FORMATS.items()}


def check_digits(country, bban):
    """The two check digits that make COUNTRY + cc + BBAN valid under ISO 7064 mod 97-10."""
    rearranged = bban + country + "00"
    number = int("".join(str(int(ch, 36)) for ch in rearranged))
    return f"{98 - number % 97:02d}"


def is_valid(iban):
    """A registered country, its exact length, and mod 97 == 1."""
    iban = iban.replace(" ", "").upper()
    country = iban[:2]
    if LENGTHS.get(country) != len(iban) or not iban.isalnum():
        return False
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


def make(rnd, country, letter_share):
    """A valid IBAN of `country`; `c` positions are letters with probability `letter_share`."""
    parts = []
    for count, kind in re.findall(r"(\d+)([nac])", BBAN_FORMATS[country]):
        for _ in range(int(count)):
            if kind == "n" or (kind == "c" and rnd.random() >= letter_share):
                parts.append(rnd.choice(string.digits))
            else:
                parts.append(rnd.choice(string.ascii_uppercase))
    bban = "".join(parts)
    return country + check_digits(country, bban) + bban


def grouped(iban):
    """The print form: groups of four separated by spaces."""
    return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))
