"""Numbers, dates and quantities with their units, found by rule (regular expressions) in a sentence.

The statistical recognisers miss many numeric answers or cut them short ("4,200 years" as DATE "4,200",
"約3.4×1.3mm", "天平勝宝4年4月9日"), so every sentence is also scanned by rule. `spans(text, lang)` yields
(start, end, label) character spans with OntoNotes labels: DATE (dates, years, durations, ages), TIME,
MONEY, PERCENT, ORDINAL, QUANTITY (a number with a unit of measure) and CARDINAL (a bare number, or a
count with a counter word: "3 people", "11677匹"). Overlapping spans are all kept: the longer and the
shorter reading are both candidates, and the scorer chooses."""
from __future__ import annotations

import re

# --- English --------------------------------------------------------------------------------------------------

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
          r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_SCALE = r"(?:\s+(?:hundred|thousand|million|billion|trillion))?"
_TIME_UNITS = {"year", "years", "month", "months", "day", "days", "week", "weeks", "decade", "decades",
               "century", "centuries", "hour", "hours", "minute", "minutes", "second", "seconds"}
_MEASURES = {"mile", "miles", "mph", "km", "kilometers", "kilometres", "meter", "meters", "metre", "metres",
             "foot", "feet", "ft", "inch", "inches", "yard", "yards", "cm", "mm", "kg", "kilograms", "gram",
             "grams", "g", "pound", "pounds", "lb", "lbs", "ton", "tons", "tonnes", "ounce", "ounces", "acre",
             "acres", "hectares", "liters", "litres", "gallons", "degrees", "knots", "watts", "volts",
             "calories", "square", "cubic"}
_STOP = {"a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "by", "with", "from", "as",
         "is", "was", "are", "were", "be", "been", "that", "which", "who", "when", "where", "and", "but",
         "it", "its", "he", "she", "they", "this", "these", "those", "than", "after", "before", "since",
         "until", "during", "ago", "old", "s"}
_OTHER_RULES = {"percent", "per", "dollars", "euros", "pounds", "yen", "francs", "marks", "st", "nd", "rd", "th",
                "am", "pm", "hundred", "thousand", "million", "billion", "trillion"}
_EN = [
    (re.compile(rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"), "DATE"),
    (re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?\b"), "DATE"),
    (re.compile(rf"\b{_MONTH}\s+(?:of\s+)?\d{{4}}\b"), "DATE"),
    (re.compile(r"\b(?:1\d{3}|20\d{2})s?\b"), "DATE"),
    (re.compile(r"\b\d{1,2}(?:st|nd|rd|th)\s+century\b", re.I), "DATE"),
    (re.compile(r"\b\d{1,2}(?::\d{2})\s*(?:a\.?m\.?|p\.?m\.?)?|\b\d{1,2}\s*(?:a\.?m\.?|p\.?m\.?)", re.I), "TIME"),
    (re.compile(rf"(?:US|A|C)?\$\s?(?:{_NUM}){_SCALE}"), "MONEY"),
    (re.compile(rf"\b(?:{_NUM}){_SCALE}\s+(?:dollars|euros|pounds sterling|yen|francs|marks)\b"), "MONEY"),
    (re.compile(rf"\b(?:{_NUM})\s*(?:%|percent\b|per cent\b)"), "PERCENT"),
    (re.compile(r"\b\d+(?:st|nd|rd|th)\b"), "ORDINAL"),
    (re.compile(rf"\b(?:{_NUM}){_SCALE}\b(?![.,]\d)"), "CARDINAL"),
]
_EN_UNIT = re.compile(rf"\b((?:{_NUM}){_SCALE})(?:-|\s+)([a-z]+)\b")


def _english(text):
    for pattern, label in _EN:
        for m in pattern.finditer(text):
            yield m.start(), m.end(), label
    for m in _EN_UNIT.finditer(text):
        unit = m.group(2)
        if unit in _STOP or unit in _OTHER_RULES or len(unit) < 2 and unit != "g":
            continue
        label = "DATE" if unit in _TIME_UNITS else "QUANTITY" if unit in _MEASURES else "CARDINAL"
        yield m.start(), m.end(), label


# --- Japanese -------------------------------------------------------------------------------------------------

_JNUM = (r"(?:[0-9０-９]+(?:[,，][0-9０-９]{3})*(?:[.．][0-9０-９]+)?|[〇一二三四五六七八九十百千]+)"
         r"(?:[万億兆](?:[0-9０-９]+|[〇一二三四五六七八九十百千]+)?)*")
_JPREFIX = r"(?:約|およそ|最大|最高|最低|最長|平均|計|合計|第)?"
_JRANGE = rf"{_JNUM}(?:\s*[×xX～〜~\-－]\s*{_JNUM})?"
_JUNITS = [
    ("DATE", "年間|年代|年|か月|ヶ月|カ月|ヵ月|箇月|月|日間|日|週間|世紀|歳|才"),
    ("TIME", "時間|時|分間|分|秒"),
    ("MONEY", "円|ドル|ユーロ|ポンド|元|ウォン|両|文"),
    ("PERCENT", "%|％|パーセント|割"),
    ("ORDINAL", "位|番目|番|代目|代|世|号|回目"),
    ("QUANTITY", "km2|km|ｋｍ|㎞|cm|mm|m2|m|ｍ|kg|g|t|ha|L|ml|キロメートル|キロ|メートル|センチメートル|センチ|"
                 "ミリメートル|ミリ|グラム|トン|リットル|ヘクタール|平方キロメートル|平方メートル|坪|℃|度|倍|馬力|"
                 "ワット|W|kW|Hz|光年|海里|マイル|フィート|インチ|ノット|カロリー|バイト"),
    ("CARDINAL", "人|名|匹|頭|羽|個|本|枚|冊|台|回|種類|種|か国|カ国|ヶ国|箇国|か所|カ所|ヶ所|箇所|件|つ|階|期|点|"
                 "票|戸|軒|隻|機|試合|勝|敗|巻|作品|曲|局|校|社|店|駅|議席|話|部|章|条|段|球|首|棟|基|両|艘|体|柱|座|門"),
]
_JA = [(re.compile(rf"{_JPREFIX}{_JRANGE}\s*(?:{units})"), label) for label, units in _JUNITS]
_JA_DATE = re.compile(rf"(?:(?:紀元前|西暦|(?:明治|大正|昭和|平成|令和|[一-龥]{{2,4}})(?=元|[0-9０-９]{{1,2}}年))?"
                      rf"(?:元|{_JNUM})年)?(?:{_JNUM}月)?(?:{_JNUM}日)?"
                      rf"(?:\s*[～〜~\-－]\s*(?:(?:{_JNUM})年)?(?:{_JNUM}月)?{_JNUM}[年月日])?")
_JA_BARE = re.compile(rf"{_JPREFIX}[0-9０-９]+(?:[,，][0-9０-９]{{3}})*(?:[.．][0-9０-９]+)?")


_JA_PART = re.compile(r"上旬|中旬|下旬|初旬|末|頃|ごろ")  # a part of a month or year after a date (5月下旬)
_JA_TO = ("から", "〜", "～", "~", "-", "－", "―", "ー")  # joins the two ends of a range
_JA_UNTIL = re.compile(r"まで|にかけて")


def _japanese_single(text):
    for pattern, label in _JA:
        for m in pattern.finditer(text):
            yield m.start(), m.end(), label
    for m in _JA_DATE.finditer(text):
        if m.end() > m.start() and text[m.end() - 1] in "年月日":
            part = _JA_PART.match(text, m.end())
            yield m.start(), m.end(), "DATE"
            if part:
                yield m.start(), part.end(), "DATE"
    for m in _JA_BARE.finditer(text):
        yield m.start(), m.end(), "CARDINAL"


def _japanese(text):
    """Numbers, dates and quantities, and ranges of two of them with the same label (1971年から1974年まで,
    7,000冊-10,000冊, 5月下旬から6月上旬), with and without the closing まで / にかけて."""
    found = sorted(set(_japanese_single(text)))
    yield from found
    starts: dict[int, list[tuple[int, str]]] = {}
    for s, e, label in found:
        starts.setdefault(s, []).append((e, label))
    for s, e, label in found:
        for to in _JA_TO:
            if text.startswith(to, e):
                for e2, label2 in starts.get(e + len(to), ()):
                    if label2 == label and text[e - 1].isdigit() == text[e2 - 1].isdigit():
                        yield s, e2, label
                        until = _JA_UNTIL.match(text, e2)
                        if until:
                            yield s, until.end(), label


def spans(text: str, lang: str) -> list[tuple[int, int, str]]:
    """Distinct (start, end, label) numeric spans of TEXT, in order of start then end."""
    found = _japanese(text) if lang == "ja" else _english(text)
    return sorted({(s, e, label) for s, e, label in found if text[s:e].strip()})
