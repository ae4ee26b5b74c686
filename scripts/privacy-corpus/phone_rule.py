"""The rule that labels a digit string a phone number (issue 36), from phonenumbers alone.

A probe is a phone when

1. phonenumbers calls it valid: written in international form (`+CC`, `00CC`,
   a `tel:` URI's `+CC`) and valid for the country its code names (branch
   `intl`), or written any other way and valid for the event's country
   (`is_valid_number_for_region`; branch `valid`); or
2. it has a possible length for that country (`IS_POSSIBLE`, for the event's
   country, or for the country of its `+CC`) and its placement names a phone:
   the field's name or a phone keyword right before it in free text (branch
   `placed`).

Nothing else is a phone, and only a digit string can be one: digits with
spaces, dashes, dots, slashes or brackets between them, a leading `+`, and an
extension (`x123`, `ext. 123`); phonenumbers alone would also read a number
out of `POINT(-48.2 -11.9)` or spell `ITEM6900958` on a keypad. The corpus
computes every phone label with `branch()`, and draws benign values of the
first make again when they are bare digit runs (`digit_run()`) that
`branch()` would call a phone outside identifier context.
"""
import re

import phonenumbers
from phonenumbers import ValidationResult

DIGIT_STRING = re.compile(r"\+?\(?[0-9][0-9 ().\-/]*[0-9](\s*(x|ext\.?|#)\s*[0-9]{1,6})?")
DIGIT_RUN = re.compile(r"\+?[0-9]+([ \-][0-9]+)*")

INTL, VALID, PLACED = "intl", "valid", "placed"


def _parse(text, region):
    try:
        return phonenumbers.parse(text, region)
    except phonenumbers.NumberParseException:
        return None


def _possible(number):
    return phonenumbers.is_possible_number_with_reason(number) == ValidationResult.IS_POSSIBLE


def international_text(text):
    """The text as `+CC...` when it is written in international form, else None."""
    text = text.strip()
    if text.startswith("tel:"):
        text = text[len("tel:"):]
    if text.startswith("+"):
        return text
    if text.startswith("00") and len(text) > 2 and text[2] in "123456789":
        return "+" + text[2:]
    return None


def digit_run(text):
    """Digits alone, or in groups split by single spaces or dashes (`0451 103 316`, `8471-30`)."""
    return DIGIT_RUN.fullmatch(text) is not None


def branch(text, region, placed):
    """`intl`, `valid`, `placed`, or None (not a phone) for `text` in an event of `region`;
    `placed`: its field or the keyword before it names a phone."""
    bare = text.strip()
    if bare.startswith("tel:"):
        bare = bare[len("tel:"):]
    if DIGIT_STRING.fullmatch(bare) is None:
        return None
    intl = international_text(text)
    if intl is not None:
        number = _parse(intl, None)
        if number is None:
            return None
        if phonenumbers.is_valid_number(number):
            return INTL
        return PLACED if placed and _possible(number) else None
    number = _parse(text.strip(), region)
    if number is None:
        return None
    if phonenumbers.is_valid_number_for_region(number, region):
        return VALID
    return PLACED if placed and _possible(number) else None


def valid_under_shared_code(text, region):
    """A national number that is not valid for `region` but is for another country sharing its
    code (a Canadian number in a US event): a phone to some readers, so never a benign probe."""
    if DIGIT_STRING.fullmatch(text.strip()) is None or international_text(text) is not None:
        return False
    number = _parse(text.strip(), region)
    return number is not None and phonenumbers.is_valid_number(number)
