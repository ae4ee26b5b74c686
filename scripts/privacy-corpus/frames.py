"""Free text around a value, in the languages of the corpus's locales.

`FRAMES` for any value, `NEUTRAL_FRAMES` that name nothing, `PHONE_FRAMES`
with a phone keyword right before the value (`PHONE_AFTER_FRAMES`: right
after it, in brackets), and `id_sentence` with an
identifier keyword right before it (see words.py).

`{v}` is where the value goes. The frames put punctuation right after it
(`.`, `,`, `)`, `;`, `!`, `?`, `:`, `。`, `、`), quotes and brackets around it,
and, in Japanese, Chinese and Korean, the value glued to the words around it
as those languages write. The frames hold no digits, `@` or `%`, so only
the value can be personal data.
"""

FRAMES = {
    "en": ["Please reach me at {v}.", "Customer wrote: my details are {v}, thanks!", "Updated ({v}) after the call",
           "{v} — see the ticket", "Can you check {v}? It looks wrong", "note: \"{v}\"; follow up tomorrow"],
    "de": ["Bitte unter {v} melden.", "Kunde schreibt: meine Angaben sind {v}, danke!", "Rückruf erbeten ({v}).",
           "Siehe {v}; bitte prüfen", "Ist „{v}“ richtig?"],
    "fr": ["Merci de me contacter : {v}.", "Le client indique {v}, merci !", "Voir ({v}) pour le suivi",
           "Est-ce bien « {v} » ?", "{v} ; à rappeler demain"],
    "es": ["Por favor, escríbeme a {v}.", "El cliente indica {v}, ¡gracias!", "Ver ({v}) para el seguimiento",
           "¿Es correcto {v}?", "Dato: «{v}»; revisar mañana"],
    "it": ["Contattami a {v}.", "Il cliente scrive {v}, grazie!", "Vedi ({v}) per il seguito", "È corretto {v}?"],
    "nl": ["Graag contact via {v}.", "Klant schrijft: {v}, bedankt!", "Zie ({v}) voor de opvolging", "Klopt {v}?"],
    "pt": ["Por favor, entre em contato: {v}.", "O cliente informou {v}, obrigado!", "Ver ({v}) para acompanhamento",
           "Está correto {v}?"],
    "pl": ["Proszę o kontakt: {v}.", "Klient pisze: {v}, dziękuję!", "Zobacz ({v}) w sprawie zgłoszenia",
           "Czy {v} jest poprawny?"],
    "ru": ["Свяжитесь со мной: {v}.", "Клиент пишет: {v}, спасибо!", "См. ({v}) по заявке", "Это верно — «{v}»?"],
    "ja": ["連絡先は{v}です。", "お客様より：{v}、よろしくお願いします。", "（{v}）をご確認ください", "「{v}」で合っていますか？"],
    "zh": ["请联系{v}。", "客户留言：{v}，谢谢！", "请查看（{v}）", "“{v}”对吗？"],
    "ko": ["연락처는 {v}입니다.", "고객 메모: {v}, 감사합니다!", "({v}) 확인 부탁드립니다", "{v} 맞나요?"],
    "tr": ["Lütfen {v} üzerinden ulaşın.", "Müşteri yazdı: {v}, teşekkürler!", "Bkz. ({v}) takip için", "{v} doğru mu?"],
    "sv": ["Kontakta mig på {v}.", "Kunden skriver: {v}, tack!", "Se ({v}) för uppföljning", "Stämmer {v}?"],
    "cs": ["Ozvěte se prosím na {v}.", "Zákazník píše: {v}, děkuji!", "Viz ({v}) k požadavku", "Je {v} správně?"],
    "he": ["אפשר לפנות אליי: {v}.", "הלקוח כתב: {v}, תודה!", "עודכן ({v}) אחרי השיחה", "האם {v} נכון?"],
    "ar": ["يرجى التواصل معي: {v}.", "كتب العميل: {v}، شكرًا!", "تم التحديث ({v}) بعد المكالمة", "هل {v} صحيح؟"],
}

# Frames that name nothing: no contact, phone or identifier words (for values placed without context).
NEUTRAL_FRAMES = {
    "en": ["Checked {v} today.", "Customer wrote: see {v}, thanks!", "Updated ({v}) after review", "{v} — see the ticket", "Is {v} right? It looks wrong"],
    "de": ["Heute {v} geprüft.", "Kunde schreibt: siehe {v}, danke!", "Aktualisiert ({v}) nach Prüfung", "Ist „{v}“ richtig?"],
    "fr": ["Vérifié {v} aujourd'hui.", "Le client indique {v}, merci !", "Mis à jour ({v}) après contrôle", "Est-ce bien « {v} » ?"],
    "es": ["Revisado {v} hoy.", "El cliente indica {v}, ¡gracias!", "Actualizado ({v}) tras la revisión", "¿Es correcto {v}?"],
    "it": ["Controllato {v} oggi.", "Il cliente scrive {v}, grazie!", "Aggiornato ({v}) dopo la verifica", "È corretto {v}?"],
    "nl": ["Vandaag {v} gecontroleerd.", "Klant schrijft: {v}, bedankt!", "Bijgewerkt ({v}) na controle", "Klopt {v}?"],
    "pt": ["Verificado {v} hoje.", "O cliente informou {v}, obrigado!", "Atualizado ({v}) após revisão", "Está correto {v}?"],
    "pl": ["Sprawdzono {v} dzisiaj.", "Klient pisze: {v}, dziękuję!", "Zaktualizowano ({v}) po weryfikacji", "Czy {v} jest poprawny?"],
    "ru": ["Проверено {v} сегодня.", "Клиент пишет: {v}, спасибо!", "Обновлено ({v}) после проверки", "Это верно — «{v}»?"],
    "ja": ["{v}を確認しました。", "お客様より：{v}、よろしくお願いします。", "（{v}）をご確認ください", "「{v}」で合っていますか？"],
    "zh": ["已核对{v}。", "客户留言：{v}，谢谢！", "请查看（{v}）", "“{v}”对吗？"],
    "ko": ["{v} 확인했습니다.", "고객 메모: {v}, 감사합니다!", "({v}) 확인 부탁드립니다", "{v} 맞나요?"],
    "tr": ["Bugün {v} kontrol edildi.", "Müşteri yazdı: {v}, teşekkürler!", "Bkz. ({v}) inceleme için", "{v} doğru mu?"],
    "sv": ["Kontrollerade {v} i dag.", "Kunden skriver: {v}, tack!", "Se ({v}) för uppföljning", "Stämmer {v}?"],
    "cs": ["Dnes zkontrolováno {v}.", "Zákazník píše: {v}, děkuji!", "Viz ({v}) k požadavku", "Je {v} správně?"],
    "he": ["נבדק היום {v}.", "הלקוח כתב: {v}, תודה!", "עודכן ({v}) אחרי בדיקה", "האם {v} נכון?"],
    "ar": ["تم التحقق من {v} اليوم.", "كتب العميل: {v}، شكرًا!", "تم التحديث ({v}) بعد المراجعة", "هل {v} صحيح؟"],
}

# Frames with a phone keyword right before the value (a colon, a space, or a preposition glued to
# the number, as Hebrew writes "ב-" and "ל-", may stand between them).
PHONE_FRAMES = {
    "en": ["Phone: {v}", "Please call my mobile {v}, thanks!", "Contact tel. {v}.", "WhatsApp: {v}", "Fax {v} (office)",
           "Cell {v} — after 6pm", "Call me on my phone {v}.", "Tel:{v}"],
    "de": ["Telefon: {v}", "Bitte Rückruf unter Tel. {v}.", "Handy {v}, danke!", "Mobil: {v}", "Fax {v} (Büro)",
           "Rufnummer {v}", "Erreichbar per WhatsApp {v}", "Tel.:{v}"],
    "fr": ["Téléphone : {v}", "Merci de rappeler au portable {v}.", "Tél. {v}", "Mobile : {v}, merci !", "Fax : {v}",
           "Joignable sur WhatsApp {v}", "Tél :{v}"],
    "es": ["Teléfono: {v}", "Llámame al móvil {v}, ¡gracias!", "Tel. {v}", "Celular: {v}", "Fax: {v}", "WhatsApp {v}"],
    "it": ["Telefono: {v}", "Richiamare al cellulare {v}, grazie!", "Tel. {v}", "Cell. {v}", "Fax {v}", "WhatsApp: {v}"],
    "nl": ["Telefoon: {v}", "Bel mijn mobiel {v}, bedankt!", "Tel. {v}", "Mobiel: {v}", "Fax {v}", "Telefoonnummer {v}"],
    "pt": ["Telefone: {v}", "Ligue para o celular {v}, obrigado!", "Tel.: {v}", "Telemóvel {v}", "WhatsApp: {v}", "Fax {v}"],
    "pl": ["Telefon: {v}", "Proszę dzwonić na komórkę {v}, dziękuję!", "Tel. {v}", "Nr telefonu: {v}", "Faks {v}"],
    "ru": ["Телефон: {v}", "Позвоните на мобильный {v}, спасибо!", "Тел. {v}", "Моб.: {v}", "WhatsApp {v}", "Факс {v}"],
    "ja": ["電話番号：{v}", "携帯{v}までご連絡ください。", "TEL：{v}", "電話{v}（平日のみ）", "FAX：{v}", "電話番号は{v}です。"],
    "zh": ["电话：{v}", "请拨打手机{v}，谢谢！", "联系电话{v}", "手机号：{v}", "传真{v}"],
    "ko": ["전화번호: {v}", "휴대폰 {v}로 연락 주세요.", "연락처 전화 {v}", "Tel. {v}", "팩스 {v}"],
    "tr": ["Telefon: {v}", "Lütfen cep {v} numarasından arayın.", "Tel: {v}", "GSM {v}, teşekkürler!", "Faks {v}"],
    "sv": ["Telefon: {v}", "Ring min mobil {v}, tack!", "Tel. {v}", "Mobilnummer {v}", "Fax {v}"],
    "cs": ["Telefon: {v}", "Volejte na mobil {v}, děkuji!", "Tel. {v}", "Mob.: {v}", "Fax {v}"],
    "he": ["טלפון: {v}", "אפשר להשיג אותי בנייד ב-{v}.", "טל׳ {v}", "נייד: {v}, תודה!", "התקשרו לטלפון ב-{v}", "פקס: {v}",
           "וואטסאפ ל-{v}", "טלפון ב-{v}", "טל' {v}"],
    "ar": ["هاتف: {v}", "رقم الجوال: {v}", "يرجى الاتصال على الهاتف {v}، شكرًا!", "جوال {v}", "واتساب: {v}", "فاكس: {v}",
           "الهاتف:{v}", "للحجز اتصل بـ{v}", "جوال:{v}"],
}

# Frames with the phone keyword right after the value, in brackets.
PHONE_AFTER_FRAMES = {
    "en": ["{v} (mobile)", "Reach me on {v} (cell), thanks!"], "de": ["{v} (Handy)", "Erreichbar unter {v} (mobil)."],
    "fr": ["{v} (portable)"], "es": ["{v} (móvil)"], "it": ["{v} (cellulare)"], "nl": ["{v} (mobiel)"],
    "pt": ["{v} (celular)"], "pl": ["{v} (komórka)"], "ru": ["{v} (моб.)"], "ja": ["{v}（携帯）", "{v}（自宅電話）"],
    "zh": ["{v}（手机）"], "ko": ["{v} (휴대폰)"], "tr": ["{v} (cep)"], "sv": ["{v} (mobil)"], "cs": ["{v} (mobil)"],
    "he": ["{v} (נייד)"], "ar": ["{v} (جوال)"],
}
KEYWORD_AFTER_SHARE = 0.12
OTHER_LANGUAGE_SHARE = 0.15

# An identifier word before a phone frame: the number still goes (its keyword names a phone).
ID_WORD_BEFORE_PHONE = {
    "en": ["About my order — ", "Invoice query, ", "Tracking problem. "], "de": ["Zu meiner Bestellung: ", "Rechnung – "],
    "fr": ["Au sujet de ma commande : ", "Facture – "], "es": ["Sobre mi pedido: ", "Factura – "],
    "it": ["Riguardo al mio ordine: ", "Fattura – "], "nl": ["Over mijn bestelling: ", "Factuur – "],
    "pt": ["Sobre o meu pedido: ", "Fatura – "], "pl": ["W sprawie zamówienia: ", "Faktura – "],
    "ru": ["По заказу: ", "Счёт — "], "ja": ["ご注文について、", "請求書の件、"], "zh": ["关于订单，", "发票问题，"],
    "ko": ["주문 관련, ", "송장 문의, "], "tr": ["Siparişim hakkında: ", "Fatura – "], "sv": ["Angående min order: ", "Faktura – "],
    "cs": ["Ohledně objednávky: ", "Faktura – "], "he": ["בנוגע להזמנה: ", "חשבונית – "], "ar": ["بخصوص الطلب: ", "الفاتورة – "],
}

CJK = {"ja", "zh", "ko"}


def language(locale):
    return locale.split("_")[0]


def sentence(rnd, locale, value, frames=FRAMES):
    """A frame of the locale's language with `value` in it, and the frame itself (for the expected text)."""
    frame = rnd.choice(frames[language(locale)])
    return frame.replace("{v}", value), frame


def phone_sentence(rnd, locale, value, id_word=False):
    """A phone keyword right before `value` (one time in eight right after it, in brackets), in the
    locale's language (one time in seven in English or another of the languages); with `id_word`, an
    order or invoice word earlier in the text."""
    lang = language(locale)
    draw = rnd.random()
    if draw < OTHER_LANGUAGE_SHARE:   # the keyword of another language the stage knows ("Tel." in a Polish note)
        lang = "en" if draw < OTHER_LANGUAGE_SHARE / 2 else rnd.choice(sorted(PHONE_FRAMES))
    if not id_word and rnd.random() < KEYWORD_AFTER_SHARE:
        frame = rnd.choice(PHONE_AFTER_FRAMES[lang])
        return frame.replace("{v}", value), frame
    frame = rnd.choice(PHONE_FRAMES[lang])
    if id_word:
        lead = rnd.choice(ID_WORD_BEFORE_PHONE[lang])
        # German nouns keep their capital; elsewhere the frame goes on in lower case.
        frame = lead + (frame if lang == "de" else frame[0].lower() + frame[1:])
    return frame.replace("{v}", value), frame


def id_sentence(rnd, locale, keyword, value):
    """An identifier keyword right before `value` ("P/N 0451-103-316"), alone or inside a neutral frame."""
    lang = language(locale)
    if lang in CJK:
        sep = rnd.choice(["", "：", " ", ": "])
    elif keyword.endswith("#"):
        sep = rnd.choice(["", "", " "])
    elif keyword.endswith(("°", "№", ".", "'")):
        sep = " "
    else:
        sep = rnd.choice([" ", ": ", " ", ":"])
    phrase = keyword + sep + "{v}"
    frame = phrase if rnd.random() < 0.3 else rnd.choice(NEUTRAL_FRAMES[lang]).replace("{v}", phrase)
    return frame.replace("{v}", value), frame
