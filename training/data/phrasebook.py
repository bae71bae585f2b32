"""The hand-written phrasebook: greetings, thanks, everyday phrases, numbers, days, time words.

Each entry is (Chinese words separated by spaces, English text, alignment as "Chinese index-English index").
It holds the seeds' examples (早上好！ -> Good morning!, 我喜欢学习 -> I like studying) and their neighbours.
"""

from __future__ import annotations

from training.data.pairs import Pair, english_words, parse_pharaoh

ENTRIES = [
    # Greetings: 早上 好 ！ -> Good morning! links 好-Good, 早上-morning, ！-!
    ("早上 好 ！", "Good morning!", "0-1 1-0 2-2"),
    ("早上 好", "Good morning", "0-1 1-0"),
    ("下午 好 ！", "Good afternoon!", "0-1 1-0 2-2"),
    ("下午 好", "Good afternoon", "0-1 1-0"),
    ("晚上 好 ！", "Good evening!", "0-1 1-0 2-2"),
    ("晚上 好", "Good evening", "0-1 1-0"),
    ("晚安 ！", "Good night!", "0-0 0-1 1-2"),
    ("晚安", "Good night", "0-0 0-1"),
    ("早上 好 ， 老师 ！", "Good morning, teacher!", "0-1 1-0 2-2 3-3 4-4"),
    ("晚上 好 ， 小明 ！", "Good evening, Xiaoming!", "0-1 1-0 2-2 3-3 4-4"),
    ("你好 ！", "Hello!", "0-0 1-1"),
    ("你好", "Hello", "0-0"),
    ("大家 好 ！", "Hello, everyone!", "0-2 1-0 2-3"),
    ("欢迎 ！", "Welcome!", "0-0 1-1"),
    ("再见 ！", "Goodbye!", "0-0 1-1"),
    ("再见", "Goodbye", "0-0"),
    ("明天 见 ！", "See you tomorrow!", "0-2 1-0 1-1 2-3"),
    ("好久 不见 ！", "Long time no see!", "0-0 0-1 1-2 1-3 2-4"),
    ("很 高兴 认识 你 。", "Nice to meet you.", "1-0 2-1 2-2 3-3 4-4"),
    # Thanks and apologies
    ("谢谢 ！", "Thank you!", "0-0 0-1 1-2"),
    ("谢谢", "Thank you", "0-0 0-1"),
    ("非常 感谢 ！", "Thank you very much!", "0-2 0-3 1-0 1-1 2-4"),
    ("不客气 。", "You are welcome.", "0-0 0-1 0-2 1-3"),
    ("对不起 。", "Sorry.", "0-0 1-1"),
    ("没关系 。", "It does not matter.", "0-0 0-1 0-2 0-3 1-4"),
    ("没 问题 ！", "No problem!", "0-0 1-1 2-2"),
    # Everyday phrases
    ("我 喜欢 学习", "I like studying", "0-0 1-1 2-2"),
    ("我 喜欢 读书", "I like reading", "0-0 1-1 2-2"),
    ("我 爱 你 。", "I love you.", "0-0 1-1 2-2 3-3"),
    ("我 想 你 。", "I miss you.", "0-0 1-1 2-2 3-3"),
    ("我 也 是 。", "Me too.", "0-0 1-1 3-2"),
    ("我 很 好 ， 谢谢 。", "I am fine, thank you.", "0-0 1-1 2-2 3-3 4-4 4-5 5-6"),
    ("我 是 学生 。", "I am a student.", "0-0 1-1 2-2 2-3 3-4"),
    ("我 不 知道 。", "I do not know.", "0-0 1-1 1-2 2-3 3-4"),
    ("我 明白 了 。", "I understand.", "0-0 1-1 3-2"),
    ("你 叫 什么 名字 ？", "What is your name?", "0-2 1-1 2-0 3-3 4-4"),
    ("我 叫 小明 。", "My name is Xiaoming.", "0-0 1-1 1-2 2-3 3-4"),
    ("这 是 什么 ？", "What is this?", "0-2 1-1 2-0 3-3"),
    ("你 会 说 中文 吗 ？", "Can you speak Chinese?", "0-1 1-0 2-2 3-3 5-4"),
    ("我 会 说 一点 中文 。", "I can speak a little Chinese.", "0-0 1-1 2-2 3-3 3-4 4-5 5-6"),
    ("多少 钱 ？", "How much is it?", "0-0 0-1 1-2 1-3 2-4"),
    ("厕所 在 哪里 ？", "Where is the toilet?", "0-2 0-3 1-1 2-0 3-4"),
    ("请 进 。", "Please come in.", "0-0 1-1 1-2 2-3"),
    ("请 坐 。", "Please sit down.", "0-0 1-1 1-2 2-3"),
    ("请 喝 茶 。", "Please drink tea.", "0-0 1-1 2-2 3-3"),
    ("等 一下 。", "Wait a moment.", "0-0 1-1 1-2 2-3"),
    ("小心 ！", "Be careful!", "0-0 0-1 1-2"),
    ("加油 ！", "Come on!", "0-0 0-1 1-2"),
    ("干杯 ！", "Cheers!", "0-0 1-1"),
    ("祝 你 好运 ！", "Good luck!", "2-0 2-1 3-2"),
    ("生日 快乐 ！", "Happy birthday!", "0-1 1-0 2-2"),
    ("新年 快乐 ！", "Happy New Year!", "0-1 0-2 1-0 2-3"),
    ("今天 天气 很 好 。", "The weather is nice today.", "0-4 1-0 1-1 2-2 3-3 4-5"),
    ("今天 很 冷 。", "It is cold today.", "0-3 1-1 2-2 3-4"),
    # Numbers
    ("零", "Zero", "0-0"),
    ("一", "One", "0-0"),
    ("二", "Two", "0-0"),
    ("三", "Three", "0-0"),
    ("四", "Four", "0-0"),
    ("五", "Five", "0-0"),
    ("六", "Six", "0-0"),
    ("七", "Seven", "0-0"),
    ("八", "Eight", "0-0"),
    ("九", "Nine", "0-0"),
    ("十", "Ten", "0-0"),
    ("一百", "One hundred", "0-0 0-1"),
    # Time words and days
    ("今天", "Today", "0-0"),
    ("明天", "Tomorrow", "0-0"),
    ("昨天", "Yesterday", "0-0"),
    ("现在", "Now", "0-0"),
    ("现在 几 点 ？", "What time is it now?", "0-4 1-0 2-1 3-5"),
    ("星期一", "Monday", "0-0"),
    ("星期二", "Tuesday", "0-0"),
    ("星期三", "Wednesday", "0-0"),
    ("星期四", "Thursday", "0-0"),
    ("星期五", "Friday", "0-0"),
    ("星期六", "Saturday", "0-0"),
    ("星期日", "Sunday", "0-0"),
    ("今天 是 星期一 。", "Today is Monday.", "0-0 1-1 2-2 3-3"),
    ("明天 是 星期五 。", "Tomorrow is Friday.", "0-0 1-1 2-2 3-3"),
    ("昨天 是 星期日 。", "Yesterday was Sunday.", "0-0 1-1 2-2 3-3"),
]


def phrasebook_pairs() -> list[Pair]:
    return [
        Pair(tuple(zh.split()), tuple(english_words(en)), parse_pharaoh(links), "phrasebook")
        for zh, en, links in ENTRIES
    ]


def phrasebook_words() -> set[str]:
    return {word for zh, _, _ in ENTRIES for word in zh.split()}
