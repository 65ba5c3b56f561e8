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
    fine: frozenset[str] = frozenset()  # fine labels that match (Mention.fine: GiNZA's ENE labels in Japanese,
                                        # the narrower OntoNotes labels in English); empty when not known


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
# the narrower labels of some heads (AnswerType.fine; English mentions' fine label is their OntoNotes label)
_EN_FINE_TEXT = [("GPE", "country nation state city capital province county town village"),
                 ("LOC", "river mountain ocean lake island continent region sea"),
                 ("PERSON", _HEADS[0][1]), ("ORG", _HEADS[2][1]), ("NORP", "nationality religion ethnicity")]
_EN_FINE = {w: frozenset({label}) for label, words in _EN_FINE_TEXT for w in words.split()}
_EN_FINE_OF = {"person": PERSON, "date": DATE, "percent": frozenset({"PERCENT"}), "count": frozenset({"CARDINAL"})}
_EN_KIND = re.compile(r"\b(?:what|which)\s+(?:kind|type|sort|style|form)s?\s+of\b")  # answers a kind, not an entity
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
    if _EN_KIND.search(q):
        return AnswerType("kind", frozenset())
    for pattern, labels, name in _EN_HOW:
        if pattern.search(q):
            unit = ""
            m = _EN_UNIT.search(q)
            if m and m.group(1) not in _EN_SKIP and m.group(1) not in {"do", "did", "does", "is", "are", "was"}:
                unit = m.group(1)
            return AnswerType(name, labels, unit, _EN_FINE_OF.get(name, frozenset()))
    m = re.search(r"\b(?:what|which)\s+(.*)", q)
    if m:
        words = [w for w in re.findall(r"[a-z]+", m.group(1)) if w not in _EN_SKIP and w != "s"]
        for w in words[:3]:  # "what record company", "what is the name of Durst's group"
            w = w[:-1] if w.endswith("s") and w[:-1] in _EN_HEAD else w
            if w in _EN_HEAD:
                return AnswerType(w, _EN_HEAD[w], "", _EN_FINE.get(w, frozenset()))
    return UNTYPED


NONE: frozenset[str] = frozenset()
# Japanese head nouns (何という山, どこの国, …の会社は？): (OntoNotes labels, GiNZA ENE labels, head words); a head
# matches by its longest ending among all words. Heads of things GiNZA labels OTHERS (colours, animals,
# diseases) have no OntoNotes labels: their answers are often plain noun phrases, so only the fine label helps.
_JA_HEADS = [
    (PERSON, "Person", "人物|人|者|作者|著者|監督|選手|社長|王|皇帝|天皇|作曲家|画家|作家|俳優|歌手|父|母|妻|夫|息子|娘|"
                       "女性|男性|首相|大統領|将軍|氏名|フルネーム|本名|創業者|創始者|設立者|発明者|発見者|受賞者|優勝者|"
                       "教授|博士|学者|政治家|人名|議員|主人公|人々|少年|少女|青年|騎手|棋士|力士|横綱|指揮者"),
    (PLACE, "Country GPE_Other", "国|国名|国家|か国|カ国"),
    (PLACE, "Province", "県|都道府県|県名|州|省"),
    (PLACE, "City County", "都市|市|町|村|首都|区|都"),
    (PLACE, "Region_Other Domestic_Region Continental_Region Location_Other GPE_Other",
     "地域|地方|場所|大陸|半島|地区|地|地名"),
    (PLACE, "Mountain", "山|山脈|火山|岳"), (PLACE, "Facility_Other Location_Other", "鉱山|炭鉱"),
    (PLACE, "River", "川|河川|河"), (PLACE, "Lake", "湖|沼"),
    (PLACE, "Island", "島|諸島|列島|離島"), (PLACE, "Sea Bay", "海|湾|洋|海峡"),
    (PLACE, "Station Car_Stop", "駅"), (PLACE, "Airport", "空港"), (PLACE, "Port", "港"),
    (PLACE, "Bridge", "橋"), (PLACE, "Castle", "城"), (PLACE, "Worship_Place", "寺|神社|寺院|教会|神宮"),
    (PLACE | ORG, "Facility_Other Sports_Facility Theater Museum Park",
     "施設|建物|劇場|球場|スタジアム|美術館|博物館|公園|ホール"),
    (ORG | {"NORP"}, "Company Company_Group Corporation_Other", "会社|企業|メーカー|社"),
    (ORG | {"FAC"}, "School Research_Institute", "大学|学校|高校|研究所"),
    (ORG, "Pro_Sports_Organization Sports_Organization_Other Sports_League", "チーム|球団|クラブ"),
    (ORG | {"NORP"}, "Political_Party Political_Organization_Other", "政党|党"),
    (ORG | {"NORP"}, "Organization_Other International_Organization Government Military Nonprofit_Organization",
     "組織|団体|機関|軍"),
    (frozenset({"WORK_OF_ART"}), "Newspaper", "新聞"), (frozenset({"WORK_OF_ART"}), "Magazine", "雑誌"),
    (frozenset({"WORK_OF_ART"}), "Book Printing_Other", "本|小説|作品|著書|書|詩集|漫画"),
    (frozenset({"WORK_OF_ART"}), "Movie Video_Work", "映画|アニメ"),
    (frozenset({"WORK_OF_ART"}), "Music", "曲|歌|楽曲|アルバム|歌曲|シングル"),
    (frozenset({"WORK_OF_ART"}), "Broadcast_Program", "番組|ドラマ"),
    (frozenset({"WORK_OF_ART"}), "Painting Art_Other", "絵|絵画"),
    (frozenset({"LANGUAGE"}), "National_Language Language_Other", "言語|語"),
    (NONE, "Award", "賞"), (NONE, "Religion", "宗教"), (NONE, "Color_Other Nature_Color", "色"),
    (NONE, "Mammal Bird Fish Reptile Amphibia Insect Living_Thing_Other", "動物|生物|哺乳類"),
    (NONE, "Bird", "鳥"), (NONE, "Fish", "魚"), (NONE, "Insect", "虫|昆虫"),
    (NONE, "Flora", "植物|花|木|樹木|草"), (NONE, "Disease_Other", "病気|病|症|疾患"),
    (NONE, "Element Compound Material Mineral", "元素|物質|化合物|金属|鉱物|石"),
    (NONE, "Dish Food_Other", "料理|食べ物|食品|菓子"), (NONE, "Sport", "スポーツ|競技"),
    (NONE, "War Incident_Other", "戦争|戦い|事件|乱|変"), (NONE, "Planet Star Astral_Body_Other", "惑星|星|恒星"),
    (NONE, "Position_Vocation Title_Other", "職業|役職|地位|肩書き|称号"),
    (NONE, "Law Treaty Rule_Other", "法|法律|条約"), (frozenset({"DATE"}), "Era", "時代"),
    (DATE, "Date Era", "年|年度|時期|日付|年月日|日時|月日"), (NONE, "Ship", "船|艦|戦艦|客船"),
    (NONE, "Train Railroad", "列車|電車|鉄道|路線"), (NONE, "Aircraft", "飛行機|航空機"),
    (NONE, "Occasion_Other Religious_Festival", "祭|祭り|行事"), (NONE, "Game", "レース|大会|試合"),
    (NONE, "Drug", "薬|医薬品"), (NONE, "Theory", "理論|説"),
    (frozenset({"NORP"}), "Ethnic_Group_Other Nationality", "民族|人種"),
]
_JA_HEAD_OF = {w: (labels, frozenset(fine.split())) for labels, fine, words in _JA_HEADS for w in words.split("|")}
_JA_HEAD_LONGEST = max(map(len, _JA_HEAD_OF))


_JA_WHOLE = set("本書石変乱星都区地河社人木草花病虫法歌曲絵語鳥魚党軍")  # heads that end too many other words
                                                             # (日本, 方法): only matched as the whole noun
_JA_NOT_HEADS = ("享年", "学年", "晩年", "長年", "定年", "伝説", "演説", "風船", "火薬")  # end with a head, are none
_JA_DATES = frozenset({"年", "年度", "日付", "年月日", "日時", "月日"})  # heads of date questions (…した年は: `dateless`)


_JA_NAME = re.compile(r"(?:正式)?(?:名前|名称|名|タイトル|題名)$")  # the name of an X (施設名, 船の名前): typed by X


def _ja_head(noun: str) -> tuple[frozenset[str], frozenset[str], str] | None:
    """(OntoNotes labels, ENE labels, the ending) of a Japanese head noun by its longest known ending (開催国 ->
    国), the name of an X as X (施設名, 船の名前 -> 施設, 船; 本名 and 国名 are heads themselves), None when
    unknown."""
    found = _ja_ending(noun)
    stem = _JA_NAME.sub("", noun)
    if stem and stem != noun and not (found and _JA_NAME.search(found[2])):
        return _ja_ending(stem)
    return found


def _ja_ending(noun: str) -> tuple[frozenset[str], frozenset[str], str] | None:
    if noun.endswith(_JA_NOT_HEADS):
        return None
    for n in range(min(len(noun), _JA_HEAD_LONGEST), 0, -1):
        end = noun[-n:]
        if end in _JA_HEAD_OF and (n > 1 or end not in _JA_WHOLE or noun == end):
            return (*_JA_HEAD_OF[end], end)
    return None


_JA_COUNTERS = ("人|名|匹|頭|羽|個|本|枚|冊|台|回|種類|種|か国|カ国|ヶ国|か所|カ所|ヶ所|箇所|件|つ|階|点|票|隻|機|"
                "試合|勝|敗|巻|作品|曲|校|社|店|駅|議席|話|部|章|段|倍|度|キロ|メートル|センチ|グラム|トン|"
                "円|ドル|歳|才|位|番目|番|代目|代|世|号|回目|割|パーセント|％|%|日間|週間|か月|ヶ月|カ月|年間|時間|分|秒|"
                "世紀|年代|年|月|日|時")
_JA_RULES_TEXT = [
    (r"何歳|何才", frozenset({"DATE", "CARDINAL", "QUANTITY"}), "age"),
    (r"何年間|何日間|何週間|何か月|何ヶ月|何カ月|何時間|何分間|何秒", frozenset({"DATE", "TIME", "QUANTITY", "CARDINAL"}),
     "duration"),
    (r"何時代|どの時代", DATE, "era"),
    (r"いつ|何年|何月|何日|何世紀|何年代|西暦|何曜日", DATE, "date"),
    (r"何時", frozenset({"TIME", "DATE"}), "time"),
    (r"いくら|何円|何ドル|金額|費用|価格|値段", frozenset({"MONEY", "CARDINAL", "QUANTITY"}), "money"),
    (r"何%|何％|何パーセント|何割|割合|比率|何倍", frozenset({"PERCENT", "QUANTITY", "CARDINAL"}), "percent"),
    (r"何位|何番目|何代目|何番|何代", frozenset({"ORDINAL", "CARDINAL"}), "ordinal"),
    (rf"何(?:{_JA_COUNTERS})|いくつ|何つ", frozenset({"CARDINAL", "QUANTITY"}), "count"),
    (r"どれ(?:くらい|ぐらい|ほど|だけ)|どの(?:くらい|ぐらい|程度)|何(?:キロ|メートル|センチ|グラム|トン|度)|"
     r"(?:長さ|高さ|重さ|広さ|深さ|面積|距離|速さ|大きさ|温度|人口|標高)は",
     frozenset({"QUANTITY", "CARDINAL", "DATE", "TIME", "PERCENT", "MONEY"}), "measure"),
    (None, NONE, "head"),  # here the wh-phrase's head noun decides (どこの国, 何という山): _japanese
    (r"誰|だれ|どなた|何者", PERSON | ORG, "person"),
    (r"どこ", PLACE | ORG, "place"),
    (r"何語", frozenset({"LANGUAGE", "NORP"}), "language"),
]
_JA_FINE_OF = {"person": frozenset({"Person"}), "language": frozenset({"National_Language", "Language_Other"})}
_JA_RULES = [(p and re.compile(p), labels, name) for p, labels, name in _JA_RULES_TEXT]
_JA_UNIT = re.compile(rf"何({_JA_COUNTERS})")
_JA_HEAD = re.compile(r"(?:どの|どこの|何という|なんという|何の|どんな|どういう|何)\s*([一-龥ァ-ヶー]+)")


_JA_SUFFIX = re.compile(r"何([一-龥ァ-ヶ]{1,3})")


# the topic the question asks for, at its end: "…の首都は？", "…した人物は誰ですか", "…の名前は何というか" (the name
# of what: 川の名は何)
_JA_TOPIC = re.compile(r"([一-龥ァ-ヶー]+(?:の(?:正式)?(?:名前|名称|名|タイトル|題名))?)(?:は|って|とは)[、\s]*"
                       r"(?:何|なに|なん|誰|だれ|どこ|どれ)?[^一-龥ァ-ヶー]{0,12}$")


def _japanese(question):
    m = _JA_SUFFIX.search(question)
    suffix = m.group(1) if m else ""  # 何色 / 何県 / 何語 ...: the answer often ends with the same word
    for pattern, labels, name in _JA_RULES:
        if pattern is None:
            typed = _head_type(question, suffix)
            if typed:
                return typed
        elif pattern.search(question):
            m = _JA_UNIT.search(question)
            return AnswerType(name, labels, m.group(1) if m and name not in ("date", "time") else "",
                              _JA_FINE_OF.get(name, NONE))
    topic = _JA_TOPIC.search(question)
    found = _ja_head(topic.group(1).replace("の", "")) if topic else None  # 船の名前 -> 船名 -> 船
    if found:
        return _head_answer(found, suffix)
    return AnswerType("suffix", frozenset(), suffix) if suffix else UNTYPED


def _head_answer(found: tuple[frozenset[str], frozenset[str], str], suffix: str) -> AnswerType:
    """The AnswerType of a known head (_ja_head's FOUND): named by the head, "date" for a date's (年, 日付)."""
    labels, fine, end = found
    return AnswerType("date" if end in _JA_DATES else end, labels, suffix, fine)


def _head_type(question: str, suffix: str) -> AnswerType | None:
    """The type of the wh-phrase's head noun (どの国, どこの県, 何という山, 何県), None when no known head."""
    for m in _JA_HEAD.finditer(question):
        found = _ja_head(m.group(1))
        if found:
            return _head_answer(found, suffix)
    return None


# choice questions: the options the answer is one of ("AとBのどちら", "A、B、Cの中で", "AとBと、誰が",
# "AですかBですか", "AかBか"; "which is older, X or Y")
_JA_LIST = [re.compile(r"(.+?)(?:の)?(?:うち|中で|なかで|いずれ)"),
            re.compile(r"(.+?)(?:[はでの、]\s*)?(?:どちら|どっち)"),
            re.compile(r"(.+と.+?)と[、，]?\s*(?:誰|だれ|何|どれ|どこ)")]
_JA_PAIR = [re.compile(r"(.+?)(?:です|でした)?か[？?、]\s*(.+?)(?:です|でした)?か[？?。]?\s*$"),
            re.compile(r"^(?!.*(?:何|誰|だれ|どこ|いつ|どれ|どの|どんな|どう|いくつ|いくら))(.+?)(?:です|でした)?か([^、。]+?)(?:です|でした)?か"
                       r"[？?。]?\s*$")]
_JA_SPLIT = re.compile(r"と|[、，,]")
_JA_PARTICLE = re.compile(r"[\u3040-\u309f]{1,2}")  # one or two hiragana: a particle (では, も), not an option
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
        # the list is what follows a topic marked とは (人物とは、勝海舟と誰: one name, no list)
        lists = (_JA_SPLIT.split(m.group(1).rsplit("とは", 1)[-1]) for m in map(lambda p: p.search(q), _JA_LIST) if m)
        pairs = ([m.group(1), m.group(2)] for m in map(lambda p: p.search(q), _JA_PAIR) if m)
        parts = [x.strip(_JA_STRIP) for x in next(lists, None) or next(pairs, None) or ()]
        parts = [x for x in parts if not _JA_PARTICLE.fullmatch(x)]  # left by the split (…とでは, もともと)
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
