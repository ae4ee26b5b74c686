"""Free text around a value, in the languages of the corpus's locales.

`{v}` is where the value goes. The frames put punctuation right after it
(`.`, `,`, `)`, `;`, `!`, `?`, `:`, `。`, `、`), quotes and brackets around it,
and, in Japanese, Chinese and Korean, the value glued to the words around it
as those languages write. The frames hold no digits, `@`, `%` or `:` next to
the value, so only the value can be personal data.
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
}


def language(locale):
    return locale.split("_")[0]


def sentence(rnd, locale, value):
    """A frame of the locale's language with `value` in it, and the frame itself (for the expected text)."""
    frame = rnd.choice(FRAMES[language(locale)])
    return frame.replace("{v}", value), frame
