"""Expected answer type of a question: the OntoNotes entity labels an answer should carry, and the unit a
numeric answer should end with ("how many years" -> years, 何人 -> 人).

The rules look at the question's wh-phrase (who / when / where / how many / how much / what year / what
CITY ...; 誰 / いつ / どこ / 何人 / 何年 / いくら / どれくらい / 何という本 ...). The first rule that matches
decides; a question no rule matches is untyped (labels empty): its candidates are neither helped nor hurt."""
from __future__ import annotations

import re
from typing import NamedTuple

NUMERIC = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT", "DATE", "TIME"})
PERSON, DATE = frozenset({"PERSON"}), frozenset({"DATE", "TIME"})
PLACE = frozenset({"GPE", "LOC", "FAC"})
ORG = frozenset({"ORG"})


class AnswerType(NamedTuple):
    name: str            # a short name for traces: person, date, place, count, ... or "" when untyped
    labels: frozenset[str]    # OntoNotes labels that match
    unit: str = ""       # the unit word a numeric answer should carry ("" when none)


UNTYPED = AnswerType("", frozenset())

# head nouns of "what/which NOUN" (English) and 何/どの/どんな/何という NOUN (Japanese) -> labels
_HEADS = [
    (PERSON, "person people man woman actor actress singer musician president leader ceo founder inventor "
             "author writer poet composer painter artist scientist player coach director king queen emperor "
             "husband wife father mother son daughter chairman official"),
    (PLACE, "country city state nation continent province county town capital place river mountain ocean "
            "lake island region area location village"),
    (ORG | {"NORP"}, "company organization organisation group band team agency university college party "
                     "newspaper network firm corporation label club school airline"),
    (frozenset({"NORP"}), "nationality religion ethnicity"),
    (frozenset({"LANGUAGE"}), "language"),
    (frozenset({"WORK_OF_ART"}), "film movie book song album novel play show opera painting"),
    (DATE, "year date day month century decade"),
    (frozenset({"PERCENT"}), "percentage percent"),
]
_EN_HEAD = {w: labels for labels, words in _HEADS for w in words.split()}
_EN_SKIP = {"name", "kind", "type", "sort", "the", "a", "an", "is", "was", "are", "were", "of", "does", "did", "do"}
_EN_HOW_TEXT = [
    (r"how many|what number", frozenset({"CARDINAL", "QUANTITY"}), "count"),
    (r"how much", frozenset({"MONEY", "QUANTITY", "PERCENT", "CARDINAL"}), "amount"),
    (r"how (?:long|often)", frozenset({"DATE", "TIME", "QUANTITY", "CARDINAL"}), "duration"),
    (r"how old", frozenset({"DATE", "CARDINAL"}), "age"),
    (r"how (?:far|tall|high|big|large|deep|wide|fast|heavy|hot|cold|long|short)", frozenset({"QUANTITY", "CARDINAL"}),
     "measure"),
    (r"what (?:percent|percentage|proportion|share)", frozenset({"PERCENT"}), "percent"),
    (r"\bwhen\b|what (?:year|date|day|month|century|decade|time)|which (?:year|date|day|month|century)",
     DATE, "date"),
    (r"\bwhere\b", PLACE, "place"),
    (r"\bwho(?:m|se)?\b", PERSON | ORG, "person"),
]
_EN_HOW = [(re.compile(p, re.I), labels, name) for p, labels, name in _EN_HOW_TEXT]
_EN_UNIT = re.compile(r"how (?:many|much) ([a-z]+)", re.I)


def _english(question):
    q = " ".join(question.lower().split())
    for pattern, labels, name in _EN_HOW:
        if pattern.search(q):
            unit = ""
            m = _EN_UNIT.search(q)
            if m and m.group(1) not in _EN_SKIP and m.group(1) not in {"do", "did", "does", "is", "are", "was"}:
                unit = m.group(1)
            return AnswerType(name, labels, unit)
    m = re.search(r"\b(?:what|which)\s+(.*)", q)
    if m:
        words = [w for w in re.findall(r"[a-z]+", m.group(1)) if w not in _EN_SKIP and w != "s"]
        for w in words[:3]:  # "what record company", "what is the name of Durst's group"
            w = w[:-1] if w.endswith("s") and w[:-1] in _EN_HEAD else w
            if w in _EN_HEAD:
                return AnswerType(w, _EN_HEAD[w])
    return UNTYPED


_JA_HEADS = [
    (PERSON, "人物|人|者|作者|著者|監督|選手|社長|王|皇帝|天皇|作曲家|画家|作家|俳優|歌手|父|母|妻|夫|息子|娘"),
    (PLACE, "国|都市|州|県|市|町|村|地域|地方|場所|島|山|川|湖|海|大陸|駅|都道府県|半島|県名|国名"),
    (ORG | {"NORP"}, "会社|企業|組織|団体|大学|学校|チーム|球団|政党|新聞|機関"),
    (frozenset({"WORK_OF_ART"}), "本|作品|小説|映画|曲|歌|アルバム|絵|番組|雑誌|漫画"),
    (frozenset({"LANGUAGE"}), "言語|語"),
]
_JA_COUNTERS = ("人|名|匹|頭|羽|個|本|枚|冊|台|回|種類|種|か国|カ国|ヶ国|か所|カ所|ヶ所|箇所|件|つ|階|点|票|隻|機|"
                "試合|勝|敗|巻|作品|曲|校|社|店|駅|議席|話|部|章|段|倍|度|キロ|メートル|センチ|グラム|トン|"
                "円|ドル|歳|才|位|番目|番|代目|代|世|号|回目|割|パーセント|％|%|日間|週間|か月|ヶ月|カ月|年間|時間|分|秒|"
                "世紀|年代|年|月|日|時")
_JA_RULES_TEXT = [
    (r"何歳|何才", frozenset({"DATE", "CARDINAL", "QUANTITY"}), "age"),
    (r"何年間|何日間|何週間|何か月|何ヶ月|何カ月|何時間|何分間|何秒", frozenset({"DATE", "TIME", "QUANTITY", "CARDINAL"}),
     "duration"),
    (r"いつ|何年|何月|何日|何世紀|何時代|何年代|西暦|どの時代|何曜日", DATE, "date"),
    (r"何時", frozenset({"TIME", "DATE"}), "time"),
    (r"いくら|何円|何ドル|金額|費用|価格|値段", frozenset({"MONEY", "CARDINAL", "QUANTITY"}), "money"),
    (r"何%|何％|何パーセント|何割|割合|比率|何倍", frozenset({"PERCENT", "QUANTITY", "CARDINAL"}), "percent"),
    (r"何位|何番目|何代目|何番|何代", frozenset({"ORDINAL", "CARDINAL"}), "ordinal"),
    (rf"何(?:{_JA_COUNTERS})|いくつ|何つ", frozenset({"CARDINAL", "QUANTITY"}), "count"),
    (r"どれ(?:くらい|ぐらい|ほど|だけ)|どの(?:くらい|ぐらい|程度)|何(?:キロ|メートル|センチ|グラム|トン|度)|"
     r"(?:長さ|高さ|重さ|広さ|深さ|面積|距離|速さ|大きさ|温度|人口|標高)は",
     frozenset({"QUANTITY", "CARDINAL", "DATE", "TIME", "PERCENT", "MONEY"}), "measure"),
    (r"誰|だれ|どなた|何者", PERSON | ORG, "person"),
    (r"どこ", PLACE | ORG, "place"),
    (r"何語", frozenset({"LANGUAGE", "NORP"}), "language"),
]
_JA_RULES = [(re.compile(p), labels, name) for p, labels, name in _JA_RULES_TEXT]
_JA_UNIT = re.compile(rf"何({_JA_COUNTERS})")
_JA_HEAD = re.compile(r"(?:どの|どこの|何という|なんという|何の|どんな|どういう|何)\s*([一-龥ァ-ヶー]+)")


_JA_SUFFIX = re.compile(r"何([一-龥ァ-ヶ]{1,3})")


def _japanese(question):
    for pattern, labels, name in _JA_RULES:
        if pattern.search(question):
            m = _JA_UNIT.search(question)
            return AnswerType(name, labels, m.group(1) if m and name not in ("date", "time") else "")
    # 何色 / 何県 / 何語 ...: the answer usually ends with the same word (黄色, 愛知県)
    m = _JA_SUFFIX.search(question)
    suffix = m.group(1) if m else ""
    for m in _JA_HEAD.finditer(question):
        head = m.group(1)
        for labels, words in _JA_HEADS:
            if re.fullmatch(rf"(?:{words})", head) or re.search(rf"(?:{words})$", head):
                return AnswerType(head, labels, suffix)
    return AnswerType("suffix", frozenset(), suffix) if suffix else UNTYPED


# choice questions: the options the answer is one of ("AとBのどちら", "A、B、Cの中で", "AとBと、誰が",
# "AですかBですか", "AかBか"; "which is older, X or Y")
_JA_LIST = [re.compile(r"(.+?)(?:の)?(?:うち|中で|なかで|いずれ)"),
            re.compile(r"(.+?)(?:[はで、]\s*)?(?:どちら|どっち)"),
            re.compile(r"(.+と.+?)と[、，]?\s*(?:誰|だれ|何|どれ|どこ)")]
_JA_PAIR = [re.compile(r"(.+?)(?:です|でした)?か[？?、]\s*(.+?)(?:です|でした)?か[？?。]?\s*$"),
            re.compile(r"^(?!.*(?:何|誰|だれ|どこ|いつ|どれ|どの|いくつ|いくら))(.+?)か([^、。]+?)か[？?。]?\s*$")]
_JA_SPLIT = re.compile(r"と|[、，,]")
_JA_STRIP = "「」『』\"'（）() 　"
_EN_CHOICE = re.compile(r"\b(?:which|who|what)\b.*?[,:]\s*(.+?)\s*\?*\s*$", re.I)
_EN_SPLIT = re.compile(r"\s*,\s*(?:or\s+)?|\s+or\s+", re.I)
MAX_OPTION = 30  # characters: a longer piece is the question's topic, not an option


def choices(question: str, lang: str) -> tuple[str, ...]:
    """The options a choice question offers (the answer is one of them), as written; () for other
    questions. Japanese: the list before のうち / の中で / どちら / と誰が, split at と and 、, or the two
    alternatives of "AですかBですか" / "AかBか"; English: "..., X or Y?" with which / who / what."""
    q = question.strip()
    if lang == "ja":
        lists = (_JA_SPLIT.split(m.group(1)) for m in map(lambda p: p.search(q), _JA_LIST) if m)
        pairs = ([m.group(1), m.group(2)] for m in map(lambda p: p.search(q), _JA_PAIR) if m)
        parts = [x.strip(_JA_STRIP) for x in next(lists, None) or next(pairs, None) or ()]
    else:
        m = _EN_CHOICE.search(q)
        if not m or not re.search(r"\bor\b", m.group(1), re.I):
            return ()
        parts = [x.strip(" \"'") for x in _EN_SPLIT.split(m.group(1))]
    parts = [x for x in parts if x and len(x) <= MAX_OPTION]
    return tuple(dict.fromkeys(parts)) if len(parts) >= 2 else ()


def answer_type(question: str, lang: str) -> AnswerType:
    """The AnswerType of QUESTION (English rules for any language but Japanese)."""
    return _japanese(question) if lang == "ja" else _english(question)
