"""Benign look-alikes: values apps send that are not personal data but share its shapes
(digit runs, dots, dashes, colons, `@`, `%40`). Each function returns a Probe
(see pii.py) whose `probe` is the whole value; `number` is set where apps also
send the value as a JSON number.
"""
import datetime
import hashlib
import uuid

from pii import Probe, pick

def digits(rnd, n, first="123456789"):
    return rnd.choice(first) + "".join(rnd.choice("0123456789") for _ in range(n - 1))


def moment(rnd):
    return datetime.datetime(2026, 1, 1) + datetime.timedelta(seconds=rnd.randrange(365 * 86400),
                                                             microseconds=rnd.randrange(1_000_000))


def version(rnd, fake, locale):
    form = pick(rnd, {"four_part": 45, "windows_build": 15, "v_prefix": 15, "in_name": 10, "three_part_leading": 15})
    if form == "four_part":
        text = f"{rnd.randint(1, 30)}.{rnd.randint(0, 20)}.{rnd.randint(0, 99)}.{rnd.randint(0, 255)}"
    elif form == "windows_build":
        text = f"10.0.{rnd.choice([19041, 19045, 22000, 22621, 22631, 26100])}.{rnd.randint(1, 5000)}"
    elif form == "v_prefix":
        text = f"v{rnd.randint(1, 9)}.{rnd.randint(0, 30)}.{rnd.randint(0, 9)}.{rnd.randint(0, 999)}"
    elif form == "in_name":
        text = f"{rnd.choice(['Chrome', 'Edge', 'OPR', 'YaBrowser'])}/{rnd.randint(100, 131)}.0.{rnd.randint(1000, 6999)}.{rnd.randint(0, 200)}"
    else:
        text = f"{rnd.randint(1, 9)}.{rnd.randint(0, 9)}.{rnd.randint(0, 9)}"
    return Probe(text, text, form)


def semver(rnd, fake, locale):
    core = f"{rnd.randint(0, 20)}.{rnd.randint(0, 40)}.{rnd.randint(0, 30)}"
    form = pick(rnd, {"plain": 40, "prerelease": 25, "build": 15, "range": 10, "v_prefix": 10})
    text = {"plain": core,
            "prerelease": f"{core}-{rnd.choice(['alpha', 'beta', 'rc'])}.{rnd.randint(1, 12)}",
            "build": f"{core}+build.{rnd.randint(1, 9999)}",
            "range": f"{rnd.choice(['^', '~', '>='])}{core}",
            "v_prefix": f"v{core}"}[form]
    return Probe(text, text, form)


def product_code(rnd, fake, locale):
    form = pick(rnd, {"device_model": 25, "part_number": 25, "ndc": 15, "model": 20, "cpu": 15})
    upper = "ABCDEFGHJKLMNPRSTUVWXYZ"
    if form == "device_model":
        text = rnd.choice([f"SM-G{rnd.randint(900, 999)}{rnd.choice('BFUN')}", f"iPhone{rnd.randint(10, 17)},{rnd.randint(1, 8)}",
                           f"Pixel {rnd.randint(6, 9)} Pro", f"M{rnd.randint(2000, 2400)}J{rnd.randint(10, 99)}G"])
    elif form == "part_number":
        text = f"M{rnd.choice(upper)}{rnd.choice(upper)}{rnd.randint(10, 99)}{rnd.choice(['LL', 'ZD', 'B', 'J'])}/A"
    elif form == "ndc":
        text = f"{digits(rnd, 4, '0123456789')}-{digits(rnd, 4, '0123456789')}-{digits(rnd, 2, '0123456789')}"
    elif form == "model":
        text = f"{rnd.choice(['WH', 'KD', 'UE', 'QN', 'XR'])}-{rnd.randint(40, 85)}{rnd.choice(['X80K', 'TU7000', 'Q60B', '1000XM5'])}"
    else:
        text = f"i{rnd.choice([5, 7, 9])}-{rnd.randint(10, 14)}{rnd.randint(100, 999)}{rnd.choice(['K', 'H', 'U', ''])}"
    return Probe(text, text, form)


def sku(rnd, fake, locale):
    form = pick(rnd, {"dashed": 35, "numeric_variant": 25, "asin": 20, "plain": 20})
    if form == "dashed":
        text = f"{rnd.choice(['SKU', 'TS', 'HD', 'AB'])}-{digits(rnd, 6, '0123456789')}-{rnd.choice(['BLK', 'RED', 'WHT', 'NVY'])}-{rnd.choice(['S', 'M', 'L', 'XL'])}"
    elif form == "numeric_variant":
        text = f"{digits(rnd, 10)}-{rnd.randint(1, 99):02d}"
    elif form == "asin":
        text = "B0" + "".join(rnd.choice("0123456789ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(8))
    else:
        text = f"{rnd.choice(['ART', 'P', 'ITEM'])}{digits(rnd, 7, '0123456789')}"
    return Probe(text, text, form)


def order_id(rnd, fake, locale):
    form = pick(rnd, {"amazon": 35, "ebay": 15, "prefixed": 20, "hash_number": 10, "long_numeric": 20})
    if form == "amazon":
        text = f"{rnd.choice(['111', '112', '113', '114', '702', '028', '171', '305', '403', '404', '405', '406', '407', '302', '303', '249', '250', '503'])}-{digits(rnd, 7, '0123456789')}-{digits(rnd, 7, '0123456789')}"
    elif form == "ebay":
        text = f"{digits(rnd, 2)}-{digits(rnd, 5, '0123456789')}-{digits(rnd, 5, '0123456789')}"
    elif form == "prefixed":
        text = f"{rnd.choice(['ORD', 'FR', 'INV', 'SO'])}-{rnd.choice([2025, 2026])}-{digits(rnd, 6, '0123456789')}"
    elif form == "hash_number":
        text = f"#{rnd.randint(1001, 999999)}"
    else:
        text = digits(rnd, rnd.choice([13, 15, 16, 17]))
        return Probe(text, text, form, text)
    return Probe(text, text, form)


def tracking_number(rnd, fake, locale):
    form = pick(rnd, {"ups": 25, "fedex12": 15, "fedex15": 10, "usps22": 15, "usps_grouped": 10, "dhl10": 10,
                      "s10": 15})
    alnum = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"
    if form == "ups":
        text = "1Z" + "".join(rnd.choice(alnum) for _ in range(6)) + digits(rnd, 10, "0123456789")
    elif form == "fedex12":
        text = digits(rnd, 12, "1234567")
    elif form == "fedex15":
        text = digits(rnd, 15, "0123456789")
    elif form == "usps22":
        text = rnd.choice(["9400", "9205", "9361", "9270"]) + digits(rnd, 18, "0123456789")
    elif form == "usps_grouped":
        raw = rnd.choice(["9400", "9205", "9361"]) + digits(rnd, 18, "0123456789")
        text = " ".join(raw[i:i + 4] for i in range(0, 22, 4))
    elif form == "dhl10":
        text = digits(rnd, 10)
    else:
        text = f"{rnd.choice(['RR', 'LX', 'CP', 'EE', 'RB'])}{digits(rnd, 9, '0123456789')}{rnd.choice(['DE', 'CN', 'GB', 'FR', 'US', 'NL'])}"
    number = text if text.isdigit() and text[0] != "0" else None
    return Probe(text, text, form, number)


def isbn(rnd, fake, locale):
    form = pick(rnd, {"isbn13": 35, "isbn13_solid": 20, "isbn10": 25, "isbn10_solid": 10, "prefixed": 10})
    if form.startswith("isbn13"):
        text = fake.isbn13() if form == "isbn13" else fake.isbn13(separator="")
    elif form.startswith("isbn10"):
        text = fake.isbn10() if form == "isbn10" else fake.isbn10(separator="")
    else:
        text = "ISBN " + fake.isbn13()
    number = text if form == "isbn13_solid" else None
    return Probe(text, text, form, number)


def ean(rnd, fake, locale):
    form = pick(rnd, {"ean13": 45, "ean8": 20, "upc_a": 20, "ean13_printed": 15})
    if form == "ean13":
        text = fake.ean13()
    elif form == "ean8":
        text = fake.ean8()
    elif form == "upc_a":
        text = fake.ean13()[1:] if rnd.random() < 0.5 else fake.ean13(prefixes=("0",))[1:]
    else:
        raw = fake.ean13()
        text = f"{raw[0]} {raw[1:7]} {raw[7:]}"
    number = text if text.isdigit() and text[0] != "0" else None
    return Probe(text, text, form, number)


def grouped_number(rnd, fake, locale):
    n = rnd.choice([digits(rnd, k) for k in (7, 8, 9, 10)])
    form = pick(rnd, {"dots": 30, "spaces": 30, "commas": 25, "apostrophes": 10, "indian": 5})
    groups = []
    while n:
        groups.insert(0, n[-3:])
        n = n[:-3]
    sep = {"dots": ".", "spaces": " ", "commas": ",", "apostrophes": "'"}.get(form)
    if form == "indian":
        whole = "".join(groups)
        head, tail = whole[:-3], whole[-3:]
        pairs = []
        while head:
            pairs.insert(0, head[-2:])
            head = head[:-2]
        text = ",".join(pairs + [tail])
    else:
        text = sep.join(groups)
    return Probe(text, text, form)


def price_text(rnd, fake, locale):
    whole, cents = rnd.randint(1, 2_500_000), rnd.randint(0, 99)
    def grp(n, sep):
        s = f"{n:,}"
        return s.replace(",", sep)
    form = pick(rnd, {"eu_comma": 25, "en": 20, "space_thousands": 15, "brl": 10, "jpy": 10, "inr": 5, "chf": 10, "code": 5})
    text = {"eu_comma": f"{grp(whole, '.')},{cents:02d} €",
            "en": f"${grp(whole, ',')}.{cents:02d}",
            "space_thousands": f"{grp(whole, ' ')},{cents:02d} {rnd.choice(['zł', 'Kč', 'kr', '₽', '€'])}",
            "brl": f"R$ {grp(whole, '.')},{cents:02d}",
            "jpy": f"¥{grp(whole, ',')}",
            "inr": f"₹{whole:,}.{cents:02d}",
            "chf": f"CHF {grp(whole, chr(39))}.{cents:02d}",
            "code": f"{grp(whole, '.')},{cents:02d} EUR"}[form]
    return Probe(text, text, form)


def timestamp(rnd, fake, locale):
    t = moment(rnd)
    offset = rnd.choice([-8, -7, -5, -4, -3, 0, 1, 2, 3, 5.5, 8, 9, 10])
    sign = "-" if offset < 0 else "+"
    h, m = int(abs(offset)), int((abs(offset) % 1) * 60)
    form = pick(rnd, {"iso_micro_offset": 30, "iso_millis_z": 20, "space_separated": 15, "rfc2822": 10, "basic": 10, "log": 15})
    text = {"iso_micro_offset": t.strftime("%Y-%m-%dT%H:%M:%S.%f") + f"{sign}{h:02d}:{m:02d}",
            "iso_millis_z": t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z",
            "space_separated": t.strftime("%Y-%m-%d %H:%M:%S"),
            "rfc2822": t.strftime("%a, %d %b %Y %H:%M:%S ") + f"{sign}{h:02d}{m:02d}",
            "basic": t.strftime("%Y%m%dT%H%M%SZ"),
            "log": t.strftime("%Y/%m/%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"}[form]
    return Probe(text, text, form)


def date(rnd, fake, locale):
    t = moment(rnd)
    form = pick(rnd, {"dotted": 20, "slashed_us": 15, "slashed_eu": 10, "iso": 10, "long": 10, "cjk": 10, "dashed_dmy": 10, "compact": 10, "short_year": 5})
    text = {"dotted": t.strftime("%d.%m.%Y"), "slashed_us": t.strftime("%m/%d/%Y"), "slashed_eu": t.strftime("%d/%m/%Y"),
            "iso": t.strftime("%Y-%m-%d"), "long": t.strftime("%d %B %Y"), "cjk": f"{t.year}年{t.month}月{t.day}日",
            "dashed_dmy": t.strftime("%d-%m-%Y"), "compact": t.strftime("%Y%m%d"), "short_year": f"{t.day}/{t.month}/{t.strftime('%y')}"}[form]
    return Probe(text, text, form)


def unix_time(rnd, fake, locale):
    seconds = int(moment(rnd).replace(tzinfo=datetime.timezone.utc).timestamp())
    form = "seconds" if rnd.random() < 0.5 else "millis"
    text = str(seconds) if form == "seconds" else f"{seconds}{rnd.randrange(1000):03d}"
    return Probe(text, text, form, text)


def wkt(rnd, fake, locale):
    def pt():
        return f"{rnd.uniform(-180, 180):.5f} {rnd.uniform(-90, 90):.5f}"
    form = pick(rnd, {"point": 60, "linestring": 25, "polygon": 15})
    text = {"point": f"POINT({pt()})", "linestring": f"LINESTRING({pt()}, {pt()}, {pt()})",
            "polygon": f"POLYGON(({pt()}, {pt()}, {pt()}, {pt()}))"}[form]
    return Probe(text, text, form)


def coordinates(rnd, fake, locale):
    lat, lon = float(fake.latitude()), float(fake.longitude())
    form = pick(rnd, {"pair": 40, "query": 20, "dms": 15, "degrees": 15, "packed": 10})
    def dms(v, pos, neg):
        a = abs(v)
        return f"{int(a)}°{int(a * 60 % 60)}′{int(a * 3600 % 60)}″{pos if v >= 0 else neg}"
    text = {"pair": f"{lat:.6f}, {lon:.6f}", "query": f"lat={lat:.4f}&lon={lon:.4f}",
            "dms": f"{dms(lat, 'N', 'S')} {dms(lon, 'E', 'W')}", "degrees": f"{abs(lat):.4f}° {'N' if lat >= 0 else 'S'}, {abs(lon):.4f}° {'E' if lon >= 0 else 'W'}",
            "packed": f"{lat:.5f},{lon:.5f}"}[form]
    return Probe(text, text, form)


def image_name(rnd, fake, locale):
    name = rnd.choice(["icon", "avatar", "logo", "hero-banner", "AppIcon-60", "Default-568h", "splash", "btn_close", "ic_launcher_128"])
    scale = rnd.choice(["@2x", "@3x", "@1.5x", "@4x"])
    ext = rnd.choice(["png", "jpg", "webp", "pdf"])
    form = pick(rnd, {"file": 50, "path": 25, "url": 25})
    file = f"{name}{scale}.{ext}"
    text = {"file": file, "path": f"/assets/img/{file}", "url": f"https://cdn.{fake.domain_name()}/img/{file}?v={rnd.randint(1, 40)}"}[form]
    return Probe(text, text, form)


def handle(rnd, fake, locale):
    user = fake.user_name()   # ASCII, as the platforms' handles are
    form = pick(rnd, {"plain": 50, "dotted": 25, "with_digits": 25})
    dotted = f"@{fake.first_name().lower()}.{fake.last_name().lower()}".replace(" ", "")
    if not dotted.isascii():
        dotted = f"@{user[:len(user) // 2]}.{user[len(user) // 2:]}"
    text = {"plain": f"@{user}", "dotted": dotted, "with_digits": f"@{user}{rnd.randint(1, 2026)}"}[form]
    return Probe(text, text, form)


def npm_scope(rnd, fake, locale):
    scope = rnd.choice(["babel", "types", "angular", "sentry", "aws-sdk", "nestjs", "react-navigation", "company", "mui"])
    package = rnd.choice(["core", "node", "react-native", "client-s3", "common", "native", "ui-kit", "material"])
    form = "versioned" if rnd.random() < 0.5 else "plain"
    text = f"@{scope}/{package}" + (f"@{rnd.randint(1, 20)}.{rnd.randint(0, 30)}.{rnd.randint(0, 9)}" if form == "versioned" else "")
    return Probe(text, text, form)


def uuid_value(rnd, fake, locale):
    u = uuid.UUID(int=rnd.getrandbits(128), version=4)
    form = pick(rnd, {"lower": 60, "upper": 25, "compact": 15})
    text = {"lower": str(u), "upper": str(u).upper(), "compact": u.hex}[form]
    return Probe(text, text, form)


def hash_value(rnd, fake, locale):
    data = rnd.getrandbits(64).to_bytes(8, "big")
    form = pick(rnd, {"md5": 25, "sha1": 25, "sha256": 25, "git_short": 25})
    text = {"md5": hashlib.md5(data).hexdigest(), "sha1": hashlib.sha1(data).hexdigest(),
            "sha256": hashlib.sha256(data).hexdigest(), "git_short": hashlib.sha1(data).hexdigest()[:7]}[form]
    return Probe(text, text, form)


def mac(rnd, fake, locale):
    octets = [rnd.randrange(256) for _ in range(6)]
    form = pick(rnd, {"colon_lower": 35, "colon_upper": 25, "dash": 25, "cisco": 15})
    text = {"colon_lower": ":".join(f"{o:02x}" for o in octets), "colon_upper": ":".join(f"{o:02X}" for o in octets),
            "dash": "-".join(f"{o:02X}" for o in octets),
            "cisco": ".".join(f"{octets[i]:02x}{octets[i + 1]:02x}" for i in (0, 2, 4))}[form]
    return Probe(text, text, form)


def clock_time(rnd, fake, locale):
    h, m, s = rnd.randrange(24), rnd.randrange(60), rnd.randrange(60)
    form = pick(rnd, {"hms": 35, "hm": 20, "millis": 15, "ampm": 15, "timecode": 15})
    text = {"hms": f"{h:02d}:{m:02d}:{s:02d}", "hm": f"{h:02d}:{m:02d}", "millis": f"{h:02d}:{m:02d}:{s:02d}.{rnd.randrange(1000):03d}",
            "ampm": f"{h % 12 or 12}:{m:02d} {'AM' if h < 12 else 'PM'}", "timecode": f"{h:02d}:{m:02d}:{s:02d}:{rnd.randrange(25):02d}"}[form]
    return Probe(text, text, form)


def ratio(rnd, fake, locale):
    form = pick(rnd, {"aspect": 50, "score": 25, "verse": 10, "scale": 15})
    text = {"aspect": rnd.choice(["16:9", "4:3", "21:9", "1:1", "3:2", "9:16", "19.5:9"]),
            "score": f"{rnd.randrange(6)}:{rnd.randrange(6)}",
            "verse": f"{rnd.choice(['John', 'Psalm', 'Genesis'])} {rnd.randint(1, 40)}:{rnd.randint(1, 30)}",
            "scale": f"1:{rnd.choice([25000, 50000, 100000, 200])}"}[form]
    return Probe(text, text, form)


def cpp(rnd, fake, locale):
    text = rnd.choice(["std::vector<int>", "std::map<std::string, int>::iterator", "std::unique_ptr<Foo>", "Eigen::MatrixXd",
                       "cv::Mat", "QObject::connect", "boost::asio::io_context", "tokio::sync::mpsc", "Db::Cache::add",
                       "ns::detail::Feed", "std::chrono::milliseconds", "Ad::Bid::Face", "std::array<uint8_t, 16>",
                       "App::Ui::Screen::onAppear", "serde_json::Value"])
    form = "identifier"
    if rnd.random() < 0.3:
        text, form = f"terminate called after throwing an instance of '{text}'", "message"
    return Probe(text, text, form)


def postcode(rnd, fake, locale):
    text = fake.postcode()
    return Probe(text, text, "locale")


def counter(rnd, fake, locale):
    """Counters and ids apps send as JSON numbers: ten digits most often, Snowflake ids up to 19."""
    form = pick(rnd, {"ten_digit": 50, "short": 15, "long": 20, "snowflake": 15})
    n = {"ten_digit": 10, "short": rnd.choice([7, 8, 9]), "long": rnd.choice([11, 12, 13, 14, 15])}.get(form, rnd.choice([18, 19]))
    text = digits(rnd, n)
    return Probe(text, text, form, text)


def amount(rnd, fake, locale):
    """Prices, quantities, revenue as JSON numbers (micros and cents too)."""
    form = pick(rnd, {"price": 30, "price_trailing_zero": 10, "quantity": 15, "revenue": 15, "cents": 15, "micros": 15})
    text = {"price": f"{rnd.randint(0, 2000)}.{rnd.randint(1, 99):02d}".rstrip("0"),
            "price_trailing_zero": f"{rnd.randint(1, 2000)}.00", "quantity": str(rnd.randint(1, 500)),
            "revenue": f"{rnd.randint(10000, 99_999_999)}.{rnd.randint(10, 99)}",
            "cents": str(rnd.randint(99, 9_999_999)), "micros": str(rnd.randint(1, 99_999) * 10_000)}[form]
    return Probe(text, text, form, text)


def url_encoded(rnd, fake, locale):
    user = fake.user_name()
    form = pick(rnd, {"handle_path": 40, "search_query": 30, "encoded_path": 30})
    text = {"handle_path": f"https://{rnd.choice(['medium.com', 'www.tiktok.com', 'mastodon.social'])}/%40{user}/{rnd.choice(['video/' + digits(rnd, 19, '7'), 'my-first-post-' + fake.sha1()[:12]])}",
            "search_query": f"https://x.com/search?q=%40{user}%20{rnd.choice(['launch', 'update', 'release'])}&src=typed_query",
            "encoded_path": f"https://{fake.domain_name()}/files/Report%20{rnd.randint(2020, 2026)}%2F{rnd.randint(1, 12):02d}.pdf"}[form]
    return Probe(text, text, form)


def user_agent(rnd, fake, locale):
    form = pick(rnd, {"ios_safari": 35, "android_chrome": 35, "app": 30})
    if form == "ios_safari":
        v = f"{rnd.randint(15, 18)}_{rnd.randint(0, 6)}_{rnd.randint(0, 3)}"
        text = f"Mozilla/5.0 (iPhone; CPU iPhone OS {v} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/{v.split('_')[0]}.{v.split('_')[1]} Mobile/15E148 Safari/604.1"
    elif form == "android_chrome":
        text = f"Mozilla/5.0 (Linux; Android {rnd.randint(10, 15)}; {rnd.choice(['SM-S918B', 'Pixel 8', 'M2101K6G'])}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{rnd.randint(110, 131)}.0.{rnd.randint(5000, 6999)}.{rnd.randint(10, 200)} Mobile Safari/537.36"
    else:
        text = f"{rnd.choice(['Flix', 'Shop', 'Notes'])}/{rnd.randint(1, 9)}.{rnd.randint(0, 30)}.{rnd.randint(0, 9)} (com.example.app; build:{rnd.randint(1000, 99999)}; iOS {rnd.randint(15, 18)}.{rnd.randint(0, 6)}.{rnd.randint(0, 3)}) Alamofire/5.{rnd.randint(4, 9)}.{rnd.randint(0, 9)}"
    return Probe(text, text, form)


GENERATORS = {
    "version": version, "semver": semver, "product_code": product_code, "sku": sku, "order_id": order_id,
    "tracking_number": tracking_number, "isbn": isbn, "ean": ean, "grouped_number": grouped_number,
    "price_text": price_text, "timestamp": timestamp, "date": date, "unix_time": unix_time, "wkt": wkt,
    "coordinates": coordinates, "image_name": image_name, "handle": handle, "npm_scope": npm_scope,
    "uuid": uuid_value, "hash": hash_value, "mac": mac, "clock_time": clock_time, "ratio": ratio, "cpp": cpp,
    "postcode": postcode, "counter": counter, "amount": amount, "url_encoded": url_encoded,
    "user_agent": user_agent,
}
# Classes that are numbers at heart, sent as JSON numbers most of the time.
NUMBER_CLASSES = {"counter", "amount"}
