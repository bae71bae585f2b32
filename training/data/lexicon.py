"""The bilingual lexicon of the demo grammar: each Chinese word with the English forms the grammar needs.

The sentences it makes are grammatical, not always sensible (a cat may sleep in the library); the point is a
small language whose word alignments are known, with the word-order differences of real Chinese and English.
"""

from __future__ import annotations

from dataclasses import dataclass

from training.data.pairs import Phrase


@dataclass(frozen=True)
class Subject:
    phrase: Phrase
    person: str  # "1s" (I), "2" (you), "3s" (he, Xiaoming), "pl" (we, they) — picks the verb form


@dataclass(frozen=True)
class Verb:
    zh: str
    base: str  # English words, space separated: "listen to"
    third: str  # he ___
    past: str
    gerund: str


@dataclass(frozen=True)
class Noun:
    zh: str
    generic: str  # as a bare object: "I like apples", "I drink tea"
    one: str = ""  # singular, for "an apple" / "The apple is on the table"; empty when the grammar never counts it
    many: str = ""  # plural, for "three apples"
    classifier: str = ""  # 个, 本, 杯 …; 杯 is translated ("a cup of tea")


@dataclass(frozen=True)
class Place:
    zh: str
    en: str  # "in Beijing", "at home", "in the park": the first word links to 在, the rest to the place


@dataclass(frozen=True)
class Time:
    zh: str
    en: str
    tense: str  # "present" | "past" | "future"


def subject(zh: str, en: str, person: str) -> Subject:
    """One word ("老师" -> "the teacher") or, with a space, word by word ("我的 朋友" -> "my friend")."""
    zh_words, en_words = tuple(zh.split()), tuple(en.split())
    if len(zh_words) == 1:
        return Subject(Phrase.word(zh, en), person)
    assert len(zh_words) == len(en_words), "multi-word subjects are translated word by word"
    return Subject(Phrase(zh_words, en_words, tuple((k, k) for k in range(len(zh_words)))), person)


SUBJECTS = [
    subject("我", "I", "1s"),
    subject("你", "you", "2"),
    subject("他", "he", "3s"),
    subject("她", "she", "3s"),
    subject("我们", "we", "pl"),
    subject("他们", "they", "pl"),
    subject("小明", "Xiaoming", "3s"),
    subject("小红", "Xiaohong", "3s"),
    subject("老师", "the teacher", "3s"),
    subject("学生们", "the students", "pl"),
    subject("我的 朋友", "my friend", "3s"),
    subject("我的 妈妈", "my mother", "3s"),
]

# Activities that need no object: 我明天在北京学习 -> I will study in Beijing tomorrow.
ACTIVITIES = [
    Verb("学习", "study", "studies", "studied", "studying"),
    Verb("工作", "work", "works", "worked", "working"),
    Verb("游泳", "swim", "swims", "swam", "swimming"),
    Verb("跑步", "run", "runs", "ran", "running"),
    Verb("唱歌", "sing", "sings", "sang", "singing"),
    Verb("跳舞", "dance", "dances", "danced", "dancing"),
    Verb("读书", "read", "reads", "read", "reading"),
    Verb("休息", "rest", "rests", "rested", "resting"),
    Verb("做饭", "cook", "cooks", "cooked", "cooking"),
    Verb("睡觉", "sleep", "sleeps", "slept", "sleeping"),
    Verb("画画", "draw", "draws", "drew", "drawing"),
    Verb("写字", "write", "writes", "wrote", "writing"),
    Verb("散步", "walk", "walks", "walked", "walking"),
]

NOUNS = {
    noun.zh: noun
    for noun in [
        Noun("苹果", "apples", "apple", "apples", "个"),
        Noun("香蕉", "bananas", "banana", "bananas", "根"),
        Noun("鸡蛋", "eggs", "egg", "eggs", "个"),
        Noun("饺子", "dumplings", "dumpling", "dumplings", "个"),
        Noun("蛋糕", "cakes", "cake", "cakes", "个"),
        Noun("面条", "noodles"),
        Noun("米饭", "rice"),
        Noun("面包", "bread", "bread"),
        Noun("水", "water", "water", "water", "杯"),
        Noun("茶", "tea", "tea", "tea", "杯"),
        Noun("咖啡", "coffee", "coffee", "coffee", "杯"),
        Noun("牛奶", "milk", "milk", "milk", "杯"),
        Noun("果汁", "juice", "juice", "juice", "杯"),
        Noun("书", "books", "book", "books", "本"),
        Noun("报纸", "newspapers", "newspaper", "newspapers", "份"),
        Noun("花", "flowers", "flower", "flowers", "朵"),
        Noun("笔", "pens", "pen", "pens", "支"),
        Noun("衣服", "clothes"),
        Noun("鞋子", "shoes"),
        Noun("电影", "movies", "movie", "movies", "部"),
        Noun("电视", "TV"),
        Noun("歌", "songs", "song", "songs", "首"),
        Noun("信", "letters", "letter", "letters", "封"),
        Noun("汉字", "Chinese characters"),
        Noun("中文", "Chinese"),
        Noun("英语", "English"),
        Noun("数学", "math"),
        Noun("历史", "history"),
        Noun("音乐", "music"),
        Noun("足球", "football"),
        Noun("篮球", "basketball"),
        Noun("网球", "tennis"),
        Noun("作业", "homework"),
        Noun("猫", "cats", "cat", "cats", "只"),
        Noun("狗", "dogs", "dog", "dogs", "只"),
        Noun("朋友", "friends", "friend", "friends", "个"),
        Noun("手机", "phones", "phone", "phones", "部"),
        Noun("钥匙", "keys", "key", "keys", "把"),
        Noun("杯子", "cups", "cup", "cups", "个"),
    ]
}

# Verbs with the objects they take; 看 is "read" with books and "watch" with films — the object decides.
TRANSITIVE = [
    (Verb("吃", "eat", "eats", "ate", "eating"), ["苹果", "香蕉", "面条", "米饭", "饺子", "面包", "鸡蛋", "蛋糕"]),
    (Verb("喝", "drink", "drinks", "drank", "drinking"), ["水", "茶", "咖啡", "牛奶", "果汁"]),
    (Verb("买", "buy", "buys", "bought", "buying"), ["书", "花", "衣服", "鞋子", "笔", "苹果", "面包", "手机"]),
    (Verb("看", "read", "reads", "read", "reading"), ["书", "报纸"]),
    (Verb("看", "watch", "watches", "watched", "watching"), ["电影", "电视"]),
    (Verb("学习", "study", "studies", "studied", "studying"), ["中文", "英语", "数学", "历史", "音乐"]),
    (Verb("听", "listen to", "listens to", "listened to", "listening to"), ["音乐", "歌"]),
    (Verb("踢", "play", "plays", "played", "playing"), ["足球"]),
    (Verb("打", "play", "plays", "played", "playing"), ["篮球", "网球"]),
    (Verb("写", "write", "writes", "wrote", "writing"), ["信", "汉字"]),
    (Verb("做", "do", "does", "did", "doing"), ["作业"]),
    (Verb("做", "make", "makes", "made", "making"), ["蛋糕"]),
    (Verb("画", "draw", "draws", "drew", "drawing"), ["猫", "狗", "花"]),
]

# What people like as such: 我喜欢苹果 -> I like apples.
LIKED = [
    "苹果",
    "香蕉",
    "面条",
    "饺子",
    "茶",
    "咖啡",
    "果汁",
    "书",
    "花",
    "电影",
    "音乐",
    "足球",
    "篮球",
    "中文",
    "英语",
    "数学",
    "历史",
    "猫",
    "狗",
]

# What people have, counted: 我有三本书 -> I have three books.
COUNTED = [
    "苹果",
    "香蕉",
    "鸡蛋",
    "蛋糕",
    "书",
    "报纸",
    "花",
    "笔",
    "猫",
    "狗",
    "朋友",
    "手机",
    "钥匙",
    "茶",
    "咖啡",
    "水",
]

NUMBERS = {
    "一": "a",
    "两": "two",
    "三": "three",
    "四": "four",
    "五": "five",
    "六": "six",
    "七": "seven",
    "八": "eight",
    "九": "nine",
    "十": "ten",
}

PLACES = [
    Place("北京", "in Beijing"),
    Place("上海", "in Shanghai"),
    Place("中国", "in China"),
    Place("学校", "at school"),
    Place("家", "at home"),
    Place("公园", "in the park"),
    Place("图书馆", "in the library"),
    Place("办公室", "in the office"),
    Place("商店", "in the shop"),
    Place("餐厅", "in the restaurant"),
    Place("教室", "in the classroom"),
]

TIMES = [
    Time("今天", "today", "present"),
    Time("明天", "tomorrow", "future"),
    Time("昨天", "yesterday", "past"),
    Time("每天", "every day", "present"),
    Time("早上", "in the morning", "present"),
    Time("下午", "in the afternoon", "present"),
    Time("晚上", "in the evening", "present"),
]

ADJECTIVES = {
    "高兴": "happy",
    "累": "tired",
    "忙": "busy",
    "饿": "hungry",
    "渴": "thirsty",
    "冷": "cold",
    "热": "hot",
    "难过": "sad",
    "紧张": "nervous",
}

# Things that sit somewhere: 书在桌子上 -> The book is on the table.
THINGS = ["书", "笔", "猫", "狗", "手机", "苹果", "杯子", "钥匙", "面包"]
CONTAINERS = {
    "桌子": ("table", "上", "on"),
    "椅子": ("chair", "上", "on"),
    "床": ("bed", "上", "on"),
    "盒子": ("box", "里", "in"),
    "包": ("bag", "里", "in"),
    "房间": ("room", "里", "in"),
    "车": ("car", "里", "in"),
    "冰箱": ("fridge", "里", "in"),
}

BE = {
    "present": {"1s": "am", "2": "are", "3s": "is", "pl": "are"},
    "past": {"1s": "was", "2": "were", "3s": "was", "pl": "were"},
}
HAVE = {"1s": "have", "2": "have", "3s": "has", "pl": "have"}
DO = {"1s": "do", "2": "do", "3s": "does", "pl": "do"}

# Grammatical words the templates use directly.
FUNCTION_WORDS = ["在", "很", "不", "吗", "有", "喜欢", "了", "上", "里", "杯", "。", "？"]


def chinese_words() -> set[str]:
    """Every Chinese word the grammar can write: the Chinese tokenizer keeps each one a single piece."""
    words = set(FUNCTION_WORDS) | set(NOUNS) | set(NUMBERS) | set(ADJECTIVES) | set(THINGS) | set(CONTAINERS)
    words |= {w for s in SUBJECTS for w in s.phrase.zh}
    words |= {v.zh for v in ACTIVITIES} | {v.zh for v, _ in TRANSITIVE}
    words |= {p.zh for p in PLACES} | {t.zh for t in TIMES}
    words |= {noun.classifier for noun in NOUNS.values() if noun.classifier}
    words |= {postposition for _, postposition, _ in CONTAINERS.values()}
    return words
