"""Field names and keywords that name what a value is, in the corpus's languages.

Phone words (`PHONE_FIELDS`, `PHONE_KEYWORDS`) make a placement name a phone;
identifier words (`ID_FIELDS`, `ID_KEYWORDS`, by kind of identifier) make it
name a model, part, version, parcel, order, item, customs or other id. Both
were written from the languages themselves (how shops, carriers, forms and
people write them), not from any detector's lists.
"""

LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pt", "pl", "ru", "ja", "zh", "ko", "tr", "sv", "cs", "he", "ar"]

# Field names that name a phone: English ones everywhere, and each language's own.
PHONE_FIELDS_EN = ["phone", "mobile", "phone_number", "tel", "contact_phone", "whatsapp", "fax", "cell",
                   "phoneNumber", "mobile_phone", "telephone", "home_phone", "work_phone", "faxNumber",
                   "whatsapp_number", "sms_number", "mobileNumber", "billing_phone"]
PHONE_FIELDS = {
    "de": ["telefon", "Telefon", "telefonnummer", "handy", "mobil", "mobilnummer", "rufnummer", "Festnetz", "fax"],
    "fr": ["téléphone", "telephone", "tel_portable", "portable", "numero_de_telephone", "numéro_de_téléphone", "mobile", "fax"],
    "es": ["teléfono", "telefono", "movil", "móvil", "celular", "numero_de_telefono", "tel_fijo", "whatsapp"],
    "it": ["telefono", "cellulare", "numero_di_telefono", "cell", "tel", "fax"],
    "nl": ["telefoon", "telefoonnummer", "mobiel", "mobiel_nummer", "tel", "fax"],
    "pt": ["telefone", "celular", "telemovel", "telemóvel", "numero_telefone", "whatsapp"],
    "pl": ["telefon", "nr_telefonu", "numer_telefonu", "komorka", "komórka", "tel", "faks"],
    "ru": ["телефон", "мобильный", "номер_телефона", "тел", "telefon", "mobilnyi", "факс"],
    "ja": ["電話番号", "携帯電話", "携帯番号", "電話", "TEL", "denwa_bango", "FAX"],
    "zh": ["电话", "手机", "手机号", "联系电话", "电话号码", "shouji", "传真"],
    "ko": ["전화번호", "휴대폰", "휴대전화", "연락처_전화", "핸드폰", "jeonhwa", "팩스"],
    "tr": ["telefon", "cep_telefonu", "cep", "gsm", "telefon_no", "faks"],
    "sv": ["telefon", "telefonnummer", "mobil", "mobilnummer", "tel", "fax"],
    "cs": ["telefon", "telefonni_cislo", "telefonní_číslo", "mobil", "tel", "fax"],
    "he": ["טלפון", "נייד", "מספר_טלפון", "טלפון_נייד", "פקס", "telefon"],
    "ar": ["هاتف", "جوال", "رقم_الهاتف", "رقم_الجوال", "الهاتف", "فاكس", "hatif"],
}
# Phone fields that also carry an identifier word (the phone still counts: the field names a phone).
PHONE_FIELDS_WITH_ID_WORD = ["order_phone", "invoice_phone", "shipping_phone", "delivery_phone", "order_contact_phone",
                             "tracking_sms_phone", "Bestell_Telefon", "telefono_pedido", "telephone_commande",
                             "注文者電話番号", "收货人手机", "주문자_전화번호", "sipariş_telefon"]
# Lists and maps whose name says they hold phones (an array of strings under it).
PHONE_LISTS = ["phones", "phone_numbers", "mobiles", "telefone", "telefonnummern", "fax_numbers"]


def phone_fields(lang):
    return PHONE_FIELDS_EN + PHONE_FIELDS.get(lang, [])


# Words that name an identifier, by kind. `ID_KEYWORDS[kind][lang]` go before the value in
# free text ("P/N 0451-103-316"); `ID_FIELDS[kind]` are field names.
ID_KEYWORDS = {
    "part": {
        "en": ["Part No.", "P/N", "part number", "Model", "Model No.", "Item no.", "Product code", "Mfr. part #", "Ref."],
        "de": ["Art.-Nr.", "Artikel-Nr.", "Artikelnummer", "Teilenummer", "Teile-Nr.", "Modell", "Typ", "Bestell-Nr."],
        "fr": ["Réf.", "réf.", "Référence", "Modèle", "N° de pièce", "Code produit", "Art."],
        "es": ["Ref.", "Referencia", "N.º de pieza", "Modelo", "Código de producto", "Art."],
        "it": ["Cod. art.", "Codice articolo", "Modello", "Rif.", "Codice prodotto", "Art."],
        "nl": ["Artikelnummer", "Art.nr.", "Onderdeelnummer", "Model", "Productcode"],
        "pt": ["Ref.", "Código do produto", "Modelo", "Nº da peça", "Cód."],
        "pl": ["Nr części", "Kod produktu", "Model", "Nr kat.", "Indeks"],
        "ru": ["Артикул", "Арт.", "Номер детали", "Модель", "Каталожный номер"],
        "ja": ["品番", "型番", "部品番号", "モデル", "製品コード"],
        "zh": ["型号", "零件号", "货号", "产品编号", "料号"],
        "ko": ["품번", "부품번호", "모델", "제품코드", "모델명"],
        "tr": ["Parça No", "Ürün kodu", "Model", "Stok kodu", "Ürün No"],
        "sv": ["Artikelnr", "Art.nr", "Modell", "Reservdelsnummer", "Produktkod"],
        "cs": ["Kat. č.", "Číslo dílu", "Model", "Kód produktu", "Obj. č."],
        "he": ["מק\"ט", "דגם", "מספר חלק", "קוד מוצר"],
        "ar": ["رقم القطعة", "الموديل", "رمز المنتج", "رقم الصنف"],
    },
    "build": {
        "en": ["Build", "Version", "version", "Firmware", "build", "FW", "OS build"],
        "de": ["Version", "Build", "Firmware-Version", "Softwarestand"],
        "fr": ["Version", "Build", "version du firmware", "Version logicielle"],
        "es": ["Versión", "Compilación", "Build", "Firmware"],
        "it": ["Versione", "Build", "Firmware"],
        "nl": ["Versie", "Build", "Firmwareversie"],
        "pt": ["Versão", "Build", "Compilação", "Firmware"],
        "pl": ["Wersja", "Kompilacja", "Build", "Oprogramowanie"],
        "ru": ["Версия", "Сборка", "Прошивка", "Build"],
        "ja": ["バージョン", "ビルド", "ファームウェア", "Ver."],
        "zh": ["版本", "版本号", "内部版本", "固件版本"],
        "ko": ["버전", "빌드", "펌웨어"],
        "tr": ["Sürüm", "Derleme", "Yazılım sürümü", "Build"],
        "sv": ["Version", "Bygge", "Build", "Firmware"],
        "cs": ["Verze", "Sestavení", "Build", "Firmware"],
        "he": ["גרסה", "גרסת", "Build"],
        "ar": ["الإصدار", "إصدار", "رقم البناء"],
    },
    "tracking": {
        "en": ["Tracking number", "tracking", "Tracking #", "AWB", "Consignment no.", "Shipment"],
        "de": ["Sendungsnummer", "Sendungsverfolgung", "Paketnummer", "Tracking-Nr."],
        "fr": ["Numéro de suivi", "N° de colis", "suivi colis", "N° d'envoi"],
        "es": ["Número de seguimiento", "N.º de envío", "Seguimiento", "Guía"],
        "it": ["Numero di tracking", "Codice spedizione", "N. spedizione", "Tracking"],
        "nl": ["Track & Trace", "Zendingnummer", "Trackingcode", "Pakketnummer"],
        "pt": ["Código de rastreio", "Rastreamento", "Nº de envio", "Objeto"],
        "pl": ["Numer przesyłki", "Nr przesyłki", "Numer śledzenia", "List przewozowy"],
        "ru": ["Трек-номер", "Номер отправления", "Трек", "Номер посылки"],
        "ja": ["追跡番号", "お問い合わせ伝票番号", "伝票番号", "配送番号"],
        "zh": ["运单号", "快递单号", "物流单号", "追踪号"],
        "ko": ["운송장번호", "송장번호", "배송조회", "운송장"],
        "tr": ["Takip No", "Kargo takip numarası", "Gönderi No"],
        "sv": ["Kolli-id", "Spårningsnummer", "Sändnings-id", "Kollinummer"],
        "cs": ["Číslo zásilky", "Sledovací číslo", "Zásilka č."],
        "he": ["מספר מעקב", "מספר משלוח", "מעקב משלוח"],
        "ar": ["رقم التتبع", "رقم الشحنة", "تتبع الشحنة"],
    },
    "order": {
        "en": ["Order", "Order #", "Order no.", "Invoice", "Invoice no.", "PO", "Receipt no."],
        "de": ["Bestellnummer", "Bestell-Nr.", "Auftragsnummer", "Rechnungsnummer", "Rechnung Nr.", "Auftrag"],
        "fr": ["Commande n°", "N° de commande", "Facture n°", "Numéro de facture", "Commande"],
        "es": ["Pedido", "N.º de pedido", "Factura", "N.º de factura", "Orden"],
        "it": ["Ordine n.", "Numero ordine", "Fattura n.", "Ordine"],
        "nl": ["Bestelnummer", "Bestelling", "Factuurnummer", "Ordernummer"],
        "pt": ["Pedido nº", "Número do pedido", "Nota fiscal", "Fatura nº", "Encomenda"],
        "pl": ["Zamówienie nr", "Numer zamówienia", "Faktura nr", "Nr faktury"],
        "ru": ["Номер заказа", "Заказ №", "Счёт №", "Номер счета"],
        "ja": ["注文番号", "ご注文番号", "請求書番号", "受注番号"],
        "zh": ["订单号", "订单编号", "发票号码", "发票号"],
        "ko": ["주문번호", "주문 번호", "청구서 번호", "인보이스 번호"],
        "tr": ["Sipariş No", "Sipariş numarası", "Fatura No", "Fatura numarası"],
        "sv": ["Ordernummer", "Order nr", "Fakturanummer", "Beställning"],
        "cs": ["Objednávka č.", "Číslo objednávky", "Faktura č.", "Číslo faktury"],
        "he": ["מספר הזמנה", "הזמנה מס'", "חשבונית מס'", "מספר חשבונית"],
        "ar": ["رقم الطلب", "طلب رقم", "رقم الفاتورة", "فاتورة رقم"],
    },
    "sku": {
        "en": ["SKU", "Item", "Item #", "Article", "Variant SKU", "UPC"],
        "de": ["SKU", "Artikel", "Art.", "Lagernummer", "Variante"],
        "fr": ["SKU", "Article", "Réf. article", "UGS"],
        "es": ["SKU", "Artículo", "Art.", "Código"],
        "it": ["SKU", "Articolo", "Art.", "Codice"],
        "nl": ["SKU", "Artikel", "Art."],
        "pt": ["SKU", "Artigo", "Item", "Cód. item"],
        "pl": ["SKU", "Artykuł", "Indeks", "Poz."],
        "ru": ["SKU", "Артикул", "Товар", "Код товара"],
        "ja": ["SKU", "商品コード", "商品番号", "JAN"],
        "zh": ["SKU", "商品编号", "商品编码", "货品编号"],
        "ko": ["SKU", "상품코드", "상품번호", "품목"],
        "tr": ["SKU", "Ürün kodu", "Stok kodu", "Barkod"],
        "sv": ["SKU", "Artikel", "Art.nr"],
        "cs": ["SKU", "Položka", "Kód zboží"],
        "he": ["מק\"ט", "פריט", "SKU"],
        "ar": ["SKU", "رمز الصنف", "الصنف"],
    },
    "hs": {
        "en": ["HS code", "HS", "HTS", "Tariff code", "Commodity code"],
        "de": ["Zolltarifnummer", "Warentarifnummer", "HS-Code", "Zolltarif-Nr."],
        "fr": ["Code SH", "Code douanier", "Nomenclature douanière", "Code HS"],
        "es": ["Código HS", "Partida arancelaria", "Código arancelario", "Fracción arancelaria"],
        "it": ["Codice doganale", "Voce doganale", "Codice HS", "Nomenclatura"],
        "nl": ["GN-code", "HS-code", "Goederencode", "Douanecode"],
        "pt": ["Código NCM", "NCM", "Código pautal", "Código SH"],
        "pl": ["Kod CN", "Kod HS", "Kod taryfy celnej", "PKWiU"],
        "ru": ["Код ТН ВЭД", "ТН ВЭД", "Код HS"],
        "ja": ["HSコード", "関税番号", "統計品目番号", "税番"],
        "zh": ["HS编码", "海关编码", "商品编码", "税则号"],
        "ko": ["HS 코드", "HS코드", "세번", "관세번호"],
        "tr": ["GTİP", "GTİP kodu", "HS kodu", "Gümrük tarife no"],
        "sv": ["KN-nummer", "Tulltaxenummer", "Varukod", "HS-kod"],
        "cs": ["Kód KN", "Celní sazebník", "Celní kód", "HS kód"],
        "he": ["קוד מכס", "פרט מכס", "HS"],
        "ar": ["رمز النظام المنسق", "البند الجمركي", "رمز HS", "التعرفة الجمركية"],
    },
    "id": {
        "en": ["Customer no.", "Account ID", "Transaction ID", "Ticket", "Contract no.", "Reference", "Case ID", "ID", "Member no."],
        "de": ["Kundennummer", "Kunden-Nr.", "Vertragsnummer", "Aktenzeichen", "Vorgangsnummer", "Referenz", "ID"],
        "fr": ["N° client", "Numéro de dossier", "Dossier n°", "Référence", "N° de contrat", "Identifiant", "SIRET"],
        "es": ["N.º de cliente", "Expediente", "Referencia", "N.º de contrato", "ID de transacción", "Localizador"],
        "it": ["Codice cliente", "Pratica n.", "Riferimento", "N. contratto", "ID transazione"],
        "nl": ["Klantnummer", "Dossiernummer", "Referentie", "Contractnummer", "Transactie-ID"],
        "pt": ["Nº de cliente", "Protocolo", "Referência", "Nº do contrato", "ID da transação"],
        "pl": ["Nr klienta", "Numer sprawy", "Sygnatura", "Nr umowy", "ID transakcji"],
        "ru": ["Номер клиента", "Номер договора", "Номер обращения", "ID транзакции", "Лицевой счёт"],
        "ja": ["お客様番号", "会員番号", "受付番号", "契約番号", "取引ID"],
        "zh": ["客户编号", "会员号", "合同编号", "交易号", "工单号"],
        "ko": ["고객번호", "회원번호", "접수번호", "계약번호", "거래번호"],
        "tr": ["Müşteri No", "Dosya No", "Sözleşme No", "İşlem No", "Referans"],
        "sv": ["Kundnummer", "Ärendenummer", "Avtalsnummer", "Referens", "Transaktions-id"],
        "cs": ["Číslo zákazníka", "Číslo smlouvy", "Číslo jednací", "Variabilní symbol", "ID transakce"],
        "he": ["מספר לקוח", "מספר פנייה", "מספר חוזה", "אסמכתא"],
        "ar": ["رقم العميل", "رقم العقد", "رقم المعاملة", "رقم المرجع"],
    },
}
ID_FIELDS = {
    "part": ["model", "part_number", "partNumber", "pn", "product_code", "mpn", "model_number", "artikelnummer", "art_nr",
             "teilenummer", "reference", "référence", "referencia", "codice_articolo", "modelo", "numer_czesci",
             "артикул", "品番", "型号", "부품번호", "parca_no", "artikelnr", "cislo_dilu", "מק\"ט", "رقم_القطعة"],
    "build": ["build", "version", "app_build", "firmware_version", "os_build", "build_number", "version_name",
              "fw_version", "versão", "versión", "wersja", "версия", "バージョン", "版本号", "버전", "sürüm", "verze"],
    "tracking": ["tracking_number", "tracking", "trackingId", "awb", "tracking_code", "sendungsnummer", "numero_suivi",
                 "numero_seguimiento", "codigo_rastreio", "trek_nomer", "追跡番号", "运单号", "운송장번호", "takip_no",
                 "kolli_id", "cislo_zasilky", "consignment"],
    "order": ["order_id", "order_number", "orderNumber", "invoice_number", "invoice_no", "order_ref", "po_number",
              "bestellnummer", "rechnungsnummer", "numero_commande", "numero_pedido", "numero_ordine", "bestelnummer",
              "numer_zamowienia", "номер_заказа", "注文番号", "订单号", "주문번호", "siparis_no", "ordernummer",
              "cislo_objednavky", "מספר_הזמנה", "رقم_الطلب"],
    "sku": ["sku", "variant_sku", "item", "item_id", "item_number", "product_sku", "artikel", "article", "sku_id",
            "商品コード", "商品编号", "상품코드", "stok_kodu"],
    "hs": ["hs_code", "hsCode", "tariff_code", "hts_code", "customs_code", "commodity_code", "zolltarifnummer", "ncm",
           "code_sh", "tn_ved", "HSコード", "海关编码", "gtip"],
    "id": ["user_id", "account_id", "customer_id", "customer_number", "transaction_id", "ticket_id", "contract_id",
           "kundennummer", "numero_client", "case_id", "member_id", "reference_id", "txn_id", "お客様番号", "客户编号"],
}
# Lists of identifiers (an array of strings under it).
ID_LISTS = {"part": ["parts", "models"], "build": ["builds", "versions"], "tracking": ["tracking_numbers", "parcels"],
            "order": ["orders", "invoices"], "sku": ["skus", "items"], "hs": ["hs_codes", "tariff_codes"],
            "id": ["ids", "customer_ids"]}

COUNTRY_NAMES = {
    "US": "United States", "GB": "United Kingdom", "IN": "India", "AU": "Australia", "DE": "Germany", "FR": "France",
    "ES": "Spain", "MX": "Mexico", "IT": "Italy", "NL": "Netherlands", "BR": "Brazil", "PT": "Portugal", "PL": "Poland",
    "RU": "Russia", "JP": "Japan", "CN": "China", "KR": "South Korea", "TR": "Turkey", "SE": "Sweden",
    "CZ": "Czech Republic", "IL": "Israel", "AE": "United Arab Emirates",
}
