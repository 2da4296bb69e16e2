"""The 600-person Japanese example of the file release (examples/records_japan/people.csv), generated.

    python -m kanon_tools records example -o examples/records_japan/people.csv

Synthetic clinic patients, the same bytes for the same seed: an id, a name and its reading, a
birth date (mostly 1985-04-12, some 1985/04/12), sex, a postal code (some in full-width digits,
some with 〒) in one of 24 cities of 12 prefectures, the city, a diagnosis and a free-text memo.
Planted on purpose, for plan to find: one memo holds a phone number and one an e-mail address
(leaks), and the city names its prefecture (a proxy, if the city were kept while the prefecture is
generalized). Nobody in it exists; the names are common ones, combined at random.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from kanon_tools.records.files import Table, render_table, write_file

PEOPLE = 600
SEED = 14
COLUMNS = ("患者ID", "氏名", "フリガナ", "生年月日", "性別", "郵便番号", "都道府県", "市区町村", "病名", "メモ")
# prefecture, city, the city's first three postal digits
CITIES = (
    ("北海道", "札幌市", "060"), ("北海道", "旭川市", "070"), ("宮城県", "仙台市", "980"),
    ("宮城県", "石巻市", "986"), ("埼玉県", "さいたま市", "330"), ("埼玉県", "川越市", "350"),
    ("千葉県", "千葉市", "260"), ("千葉県", "船橋市", "273"), ("東京都", "新宿区", "160"),
    ("東京都", "世田谷区", "154"), ("東京都", "八王子市", "192"), ("東京都", "練馬区", "176"),
    ("神奈川県", "横浜市", "231"), ("神奈川県", "川崎市", "210"), ("愛知県", "名古屋市", "450"),
    ("愛知県", "豊田市", "471"), ("京都府", "京都市", "600"), ("大阪府", "大阪市", "530"),
    ("大阪府", "堺市", "590"), ("広島県", "広島市", "730"), ("福岡県", "福岡市", "810"),
    ("福岡県", "北九州市", "802"), ("沖縄県", "那覇市", "900"), ("沖縄県", "沖縄市", "904"),
)
SURNAMES = (("佐藤", "サトウ"), ("鈴木", "スズキ"), ("高橋", "タカハシ"), ("田中", "タナカ"), ("伊藤", "イトウ"),
            ("渡辺", "ワタナベ"), ("山本", "ヤマモト"), ("中村", "ナカムラ"), ("小林", "コバヤシ"), ("加藤", "カトウ"),
            ("吉田", "ヨシダ"), ("山田", "ヤマダ"), ("佐々木", "ササキ"), ("松本", "マツモト"), ("井上", "イノウエ"))
GIVEN = {"男": (("大輔", "ダイスケ"), ("健太", "ケンタ"), ("翔太", "ショウタ"), ("誠", "マコト"), ("浩", "ヒロシ"),
               ("隆", "タカシ"), ("拓也", "タクヤ"), ("蓮", "レン")),
         "女": (("陽子", "ヨウコ"), ("美咲", "ミサキ"), ("恵子", "ケイコ"), ("愛", "アイ"), ("由美", "ユミ"),
               ("さくら", "サクラ"), ("裕子", "ユウコ"), ("葵", "アオイ"))}
DIAGNOSES = ("高血圧", "糖尿病", "喘息", "骨折", "胃炎", "うつ病", "花粉症", "腰痛", "片頭痛", "貧血")
MEMOS = ("服薬指導済み", "次回は3か月後", "経過良好", "検査結果待ち", "紹介状あり", None, None, None)
WIDE = str.maketrans("0123456789-", "０１２３４５６７８９－")


def people(n: int = PEOPLE, seed: int = SEED) -> Table:
    """n synthetic patients (COLUMNS), rows in id order."""
    rng = random.Random(seed)
    ids = rng.sample(range(10000, 100000), n)
    rows = []
    for number, patient in enumerate(sorted(ids)):
        sex = rng.choice("男女")
        surname, given = rng.choice(SURNAMES), rng.choice(GIVEN[sex])
        year, month, day = rng.randint(1935, 2008), rng.randint(1, 12), rng.randint(1, 28)
        born = f"{year}-{month:02d}-{day:02d}" if rng.random() < 0.85 else f"{year}/{month:02d}/{day:02d}"
        prefecture, city, prefix = rng.choice(CITIES)
        postal = f"{prefix}-{rng.randint(0, 9999):04d}"
        form = rng.random()
        postal = postal.translate(WIDE) if form < 0.08 else ("〒" + postal if form < 0.15 else postal)
        memo = rng.choice(MEMOS)
        if number == 17:
            memo = "折り返し連絡先 090-2468-1357"  # a planted leak: a phone number in free text
        if number == 311:
            memo = "結果はkenta.example@example.jpへ送付"  # another: an e-mail address
        rows.append((f"P{patient}", f"{surname[0]} {given[0]}", f"{surname[1]} {given[1]}", born, sex, postal,
                     prefecture, city, rng.choice(DIAGNOSES), memo))
    return Table(COLUMNS, tuple(rows))


def render(n: int = PEOPLE, seed: int = SEED) -> bytes:
    """The example's CSV bytes, rows in render_table's seeded order: one fixed byte string."""
    return render_table(people(n, seed), "csv", seed=b"kanon-records-example")


def run_example(args: argparse.Namespace) -> int:
    write_file(Path(args.output), render())
    print(f"{PEOPLE} synthetic patients written to {args.output}")
    return 0
