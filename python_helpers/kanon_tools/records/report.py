"""The receipt of a file release, as JSON and as text in English or Japanese (`--lang ja`).

It is built from counts only: the release's record receipt (`kanon_tools.receipt.records_receipt`,
read from the audit trail of the run), the plan's level-0 risk profile (before), the recount of
the finished file (after), the findings plan also shows (leaks, proxies, observations: whether
each is still in the released file), and the files' names and SHA-256 digests. Column names
appear; no value of any record does, and the tests scan every receipt for every input cell.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from kanon_tools.receipt import at_root, records_level_text

LANGUAGES: tuple[str, ...] = ("en", "ja")
REASONS: tuple[str, ...] = ("too_small", "not_diverse", "missing_value")

ROLE_NAMES = {
    "en": {"identifier": "identifier", "quasi_identifier": "quasi-identifier", "sensitive": "sensitive",
           "keep": "kept as is (unprotected)", "drop": "dropped"},
    "ja": {"identifier": "識別子", "quasi_identifier": "準識別子", "sensitive": "機微属性",
           "keep": "そのまま公開（保護なし）", "drop": "削除"},
}
REASON_NAMES = {
    "en": {"too_small": "class below k", "not_diverse": "not l-diverse", "missing_value": "missing value"},
    "ja": {"too_small": "k人未満のクラス", "not_diverse": "l-多様性の不足", "missing_value": "欠損値"},
}
LABELS = {
    "en": {"title": "Receipt of a kanon record release", "input": "input", "output": "output",
           "config": "configuration",
           "status": "status", "done": "what was done", "privacy": "privacy", "budget": "budget", "columns": "columns",
           "loss": "loss", "lattice": "lattice", "records": "records", "classes": "classes", "before": "risk before",
           "after": "risk after", "recount": "file recount", "hints": "hints", "warnings": "warnings",
           "refused": "refused", "findings": "findings"},
    "ja": {"title": "kanon レコード公開の記録", "input": "入力", "output": "出力", "config": "設定", "status": "状態",
           "done": "実施内容", "privacy": "保護水準", "budget": "抑制の上限", "columns": "列", "loss": "情報損失",
           "lattice": "探索", "records": "レコード", "classes": "同値クラス", "before": "処理前のリスク",
           "after": "処理後のリスク", "recount": "出力の再集計", "hints": "ヒント", "warnings": "警告",
           "refused": "公開拒否", "findings": "検出事項"},
}
DETECTOR_NAMES = {"en": {"my_number": "a My Number", "card": "a card number", "phone": "a phone number",
                         "email": "an e-mail address"},
                  "ja": {"my_number": "マイナンバー", "card": "カード番号", "phone": "電話番号",
                         "email": "メールアドレス"}}


UNIT_NAMES = {"en": {"records": "records", "people": "people"}, "ja": {"records": "レコード", "people": "人"}}
LABEL_WIDTH = 16


def pad(label: str, width: int = LABEL_WIDTH) -> str:
    """`label` padded to `width` terminal columns (a full-width character takes two)."""
    used = sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in label)
    return label + " " * max(width - used, 1)


def _n(value: Any) -> str:
    return "-" if value is None else str(value)


def level_words(column: Mapping[str, Any], lang: str) -> str:
    """How a quasi-identifier is published at its level (`kanon_tools.receipt.records_level_text`
    in English): as recorded at level 0, one value for every record at its root."""
    if lang != "ja":
        return records_level_text(column)
    level, depth, generalizer = column.get("level"), column.get("depth"), column.get("generalizer")
    if level == 0:
        return f"元の値のまま（レベル0/{_n(depth)}）"
    if at_root(column):
        where = f"（レベル{level}/{depth}）"
        if generalizer == "suppression":
            return "すべて「*」で伏せて公開" + where
        if generalizer == "hierarchy":
            return "すべて階層の最上位に一般化" + where
        return "すべて「*」に一般化" + where
    return f"{generalizer} レベル{_n(level)}/{_n(depth)}"


def done_sentence(receipt: Mapping[str, Any], lang: str) -> str:
    """What was done, in one sentence, from the receipt's counts (not from its English text)."""
    release = receipt.get("release") or {}
    records = release.get("records") or {}
    suppressed = (records.get("suppressed") or {}).get("total")
    k, l_value = release.get("k"), release.get("l")
    moved = [c for c in release.get("columns") or [] if c.get("level")]
    hidden = [c["name"] for c in moved if at_root(c) and c.get("generalizer") == "suppression"]
    steps = [c for c in moved if c["name"] not in hidden]
    if receipt.get("status") != "RELEASED":
        refused = receipt.get("refused") or release.get("refused") or {}
        why = refused.get("reason") or refused.get("check") or ""
        if lang == "ja":
            return "公開を拒否しました。何も書き出していません" + (f"（{why}）。" if why else "。")
        return "Refused: nothing was written" + (f" ({why})." if why else ".")
    written = (receipt.get("output") or {}).get("written")
    if lang == "ja":
        text = f"入力{_n(records.get('in'))}件のうち{_n(records.get('out'))}件を、どの同値クラスも{k}人以上"
        text += f"・機微属性が{l_value}種類以上" if l_value is not None else ""
        text += "となるよう"
        if steps:
            text += "、" + "、".join(f"{c['name']}を最上位（レベル{c['level']}/{c['depth']}）まで" if at_root(c)
                                    else f"{c['name']}をレベル{c['level']}/{c['depth']}まで" for c in steps)
            text += "一般化して"
        if hidden:
            text += "、" + "、".join(f"{name}をすべて「*」で伏せて" for name in hidden)
        text += "公開しました" if written else "公開できることを確認しました（--dry-run: 書き出していません）"
        return text + f"。抑制{_n(suppressed)}件。"
    text = ("Released " if written else "Would release (dry run, nothing written) ")
    text += f"{_n(records.get('out'))} of {_n(records.get('in'))} records in classes of at least {k} people"
    text += f", each {l_value}-diverse" if l_value is not None else ""
    if steps:
        text += ", after generalizing " + ", ".join(
            f"{c['name']} to its root (level {c['level']} of {c['depth']})" if at_root(c)
            else f"{c['name']} to level {c['level']} of {c['depth']}" for c in steps)
    if hidden:
        text += (" and" if steps else ",") + " suppressing " + ", ".join(hidden) + " (* for every record)"
    return text + f"; {_n(suppressed)} suppressed."


def finding_lines(found: Mapping[str, Any], lang: str, *, observations: bool = True) -> list[str]:
    """plan's findings (and run's, with whether each is in the released file: `in_release`), one
    line each: column names, detectors and counts, never a value."""
    ja = lang == "ja"
    lines = []
    for leak in found.get("leaks") or []:
        kind = DETECTOR_NAMES.get(lang, {}).get(leak["detector"], leak["detector"])
        line = f"{leak['column']}: " + (
            f"{kind}の形の値が{leak['count']}件（{leak['checked']}件を検査）" if ja else
            f"{leak['count']} value(s) hold {kind} ({leak['checked']} checked, {leak['skipped']} empty)")
        if "in_release" in leak:
            kept = "。出力に含まれます" if ja else ": in the released file, as recorded"
            generalized = ("。一般化され、出力には含まれません" if ja
                           else ": not in the released file (the column is generalized)")
            line += kept if leak["in_release"] else generalized
        lines.append(line)
    for p in found.get("proxies") or []:
        line = (f"{p['source']}が{p['target']}をほぼ決めます（{p['support']}件中の例外{p['violations']}件）" if ja else
                f"{p['source']} nearly determines {p['target']} ({p['violations']} of {p['support']} rows off, "
                f"{p['groups']} values): publishing one gives the other away")
        if "in_release" in p:
            line += ("。出力に含まれます" if ja else "; in the released file") if p["in_release"] else (
                f"。{p['source']}は元の値のまま公開されるため、影響はありません" if ja else
                f"; no risk in the released file ({p['source']} is published as recorded)")
        lines.append(line)
    for o in (found.get("observations") or []) if observations else []:
        share = f"{o['count']}/{o['of']}件" if ja else f"{o['count']} of {o['of']}"
        lines.append(f"{o['column']}: {o['check']} {share}")
    if not found.get("leak_checks"):
        lines.append("漏えい検査なし（ヒントパックなし）" if ja else "no leak checks: no hint pack turns them on")
    return lines


def render(receipt: Mapping[str, Any], lang: str) -> str:
    """The receipt for a person, one labelled line per fact, in `lang` (en or ja)."""
    labels, roles = LABELS[lang], ROLE_NAMES[lang]
    ja = lang == "ja"
    lines = [labels["title"]]

    def add(label: str, value: str) -> None:
        lines.append("  " + pad(labels.get(label, label) if label else "") + value)

    source, out, config = receipt.get("input") or {}, receipt.get("output") or {}, receipt.get("configuration") or {}
    add("input", f"{source.get('file')} ({source.get('format')}, {_n(source.get('rows'))} "
                 + ("件" if ja else "rows") + f", sha256 {str(source.get('sha256'))[:16]}…)")
    add("config", f"{config.get('file')} (sha256 {str(config.get('sha256'))[:16]}…)")
    if out.get("written"):
        add("output", f"{out.get('file')} ({out.get('format')}, {_n(out.get('rows'))} " + ("件" if ja else "rows")
            + f", sha256 {str(out.get('sha256'))[:16]}…)")
    else:
        add("output", "書き出していません" if ja else "nothing written")
    add("status", str(receipt.get("status")))
    add("done", done_sentence(receipt, lang))
    release = receipt.get("release") or {}
    refused = receipt.get("refused") or release.get("refused")
    if refused:
        add("refused", f"{_n(refused.get('check'))}: {_n(refused.get('reason'))}")
    privacy = f"k={_n(release.get('k'))}"
    if release.get("l") is not None:
        privacy += f", l={release['l']} ({release.get('diversity')})"
    unit = release.get("privacy_unit")
    privacy += (f", {unit}" + ("で人を数える" if ja else " says who a record is about")) if unit else (
        "、1人1レコード" if ja else ", one record per person")
    add("privacy", privacy)
    budget = release.get("budget") or {}
    if budget:
        share = budget.get("share") or 0
        unit_name = UNIT_NAMES[lang].get(str(budget.get("unit")), str(budget.get("unit")))
        add("budget", (f"{unit_name}の{share:.1%}まで（{_n(budget.get('limit'))}件）、使用{_n(budget.get('used'))}件"
                       if ja else f"at most {share:.1%} of the {unit_name} (limit {_n(budget.get('limit'))}), "
                                  f"used {_n(budget.get('used'))}"))
    for index, column in enumerate(release.get("columns") or []):
        text = f"{column['name']}: {roles.get(column.get('role') or '', column.get('role'))}"
        if "level" in column:
            text += ("、" if ja else ", ") + level_words(column, lang)
        if column.get("pseudonym"):
            text += "、仮名化（鍵付きハッシュ）" if ja else ", pseudonymized (keyed hash)"
        add("columns" if index == 0 else "", text)
    loss = release.get("loss") or {}
    if loss:
        add("loss", ", ".join(f"{name} {_n(value)}" for name, value in loss.items()))
    lattice = release.get("lattice") or {}
    add("lattice", f"{_n(lattice.get('size'))}ノード中{_n(lattice.get('nodes_evaluated'))}を評価" if ja
        else f"{_n(lattice.get('nodes_evaluated'))} of {_n(lattice.get('size'))} nodes evaluated")
    records = release.get("records") or {}
    suppressed = records.get("suppressed") or {}
    reasons = ", ".join(f"{REASON_NAMES[lang][r]} {_n(suppressed.get(r))}" for r in REASONS)
    counts = (_n(records.get("in")), _n(records.get("out")), _n(suppressed.get("total")))
    add("records", "入力{}件、出力{}件、抑制{}件".format(*counts) + f"（{reasons}）" if ja
        else "{} in, {} out, {} suppressed".format(*counts) + f" ({reasons})")
    before = receipt.get("risk_before") or {}
    if before:
        add("before", (f"そのままでは{_n(before.get('records_in_classes_of_1'))}件が1人だけのクラス、"
                       f"{_n(before.get('records_in_classes_of_2_to_k_minus_1'))}件がk人未満のクラス"
                       f"（同値クラス{_n(before.get('classes'))}）") if ja else
            f"as handed in, {_n(before.get('records_in_classes_of_1'))} records alone in their class, "
            f"{_n(before.get('records_in_classes_of_2_to_k_minus_1'))} in classes of 2 to k-1 "
            f"({_n(before.get('classes'))} classes)")
    recount = receipt.get("file_recount") or {}
    if recount:
        after = (f"同値クラス{_n(recount.get('classes'))}、最小{_n(recount.get('smallest_class'))}件、"
                 f"k未満 {_n(recount.get('records_below_k'))}件" if ja else
                 f"{_n(recount.get('classes'))} classes, the smallest {_n(recount.get('smallest_class'))} records, "
                 f"{_n(recount.get('records_below_k'))} records below k")
        if recount.get("least_diverse") is not None:
            after += (f"、機微属性は最少{recount['least_diverse']}種類" if ja
                      else f", at least {recount['least_diverse']} sensitive values per class")
        add("after", after)
        add("recount", ("一致（出力ファイルを読み直して数え直しました）" if ja else
                        "passed (the written bytes read back and counted again)") if recount.get("ok") else
            ("不一致: 書き出していません" if ja else "FAILED: nothing written"))
    for index, rescue in enumerate(release.get("rescue") or []):
        add("hints" if index == 0 else "",
            f"{rescue['column']}をもう1段階一般化すると、抑制された{rescue['records']}件を救えます" if ja
            else f"one more generalization step on {rescue['column']} would rescue {rescue['records']} "
                 f"suppressed record{'' if rescue['records'] == 1 else 's'}")
    for index, warning in enumerate(receipt.get("warnings") or []):
        add("warnings" if index == 0 else "", str(warning))
    if receipt.get("findings") is not None:
        for index, line in enumerate(finding_lines(receipt["findings"], lang) or ["-"]):
            add("findings" if index == 0 else "", line)
    return "\n".join(lines) + "\n"
