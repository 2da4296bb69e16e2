"""Every macro, generic test and materialization the package defines is documented in a
macros/**/*.yml, and every documented one exists; every relative link of the Markdown docs (the
file, and a .md target's #anchor as GitHub makes it) resolves: docs cannot silently go stale."""

from __future__ import annotations

import re
from pathlib import Path

import yaml  # type: ignore[import-untyped]  # no stubs installed; only safe_load is used
from support import ROOT

# dbt names a materialization's macro materialization_<name>_<adapter> and a generic test's test_<name>
DEFINED = re.compile(r"{%-?\s*(macro|materialization|test)\s+(\w+)(?:\s*,\s*(\w+))?")
DISPATCHED = ("default__", "duckdb__", "postgres__", "spark__")


def _defined() -> set[str]:
    names = set()
    for path in (ROOT / "macros").rglob("*.sql"):
        for kind, name, adapter in DEFINED.findall(path.read_text()):
            if kind == "materialization":
                names.add(f"materialization_{name}_{adapter or 'default'}")
            elif kind == "test":
                names.add(f"test_{name}")
            elif not name.startswith(DISPATCHED):
                names.add(name)
    return names


def _documented() -> set[str]:
    names = set()
    for path in (ROOT / "macros").rglob("*.yml"):
        for entry in (yaml.safe_load(path.read_text()) or {}).get("macros") or []:
            assert entry.get("description", "").strip(), f"{path.name}: {entry['name']} has no description"
            names.add(entry["name"])
    return names


def test_every_macro_is_documented_and_every_doc_has_its_macro() -> None:
    defined, documented = _defined(), _documented()
    assert sorted(defined - documented) == [], "macros without docs"
    assert sorted(documented - defined) == [], "docs of macros that no longer exist"


# --- relative links in the Markdown docs resolve: the file, and for a .md target the #anchor ---

DOC_PAGES = ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "BENCHMARKS.md")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# [text](target) and ![alt](target); the target ends at a space (a title may follow) or ")"
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^)]*)?\)")
CODE_SPAN = re.compile(r"(`+).+?\1")


def _doc_pages(root: Path) -> list[Path]:
    return [root / name for name in DOC_PAGES if (root / name).exists()] + sorted((root / "docs").rglob("*.md"))


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks (a `# comment` in a shell block is no heading)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its rendered text lower-cased, punctuation dropped
    (letters, digits, '_', '-' and spaces stay), spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link renders as its text
    text = text.replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for line in _prose(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if match:
            slug = github_slug(match.group(2))
            anchors.add(f"{slug}-{seen[slug]}" if slug in seen else slug)  # repeats get -1, -2, ...
            seen[slug] = seen.get(slug, 0) + 1
    return anchors


def broken_links(pages: list[Path], root: Path) -> list[str]:
    """Every relative link of the pages whose file, or whose #anchor in a .md file, is missing."""
    broken = []
    for page in pages:
        for line in _prose(page.read_text(encoding="utf-8")):
            for target in LINK.findall(CODE_SPAN.sub("", line)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto: ...
                    continue
                path_part, _, anchor = target.partition("#")
                resolved = (page.parent / path_part).resolve() if path_part else page
                where = f"{page.relative_to(root)}: ({target})"
                if not resolved.exists():
                    broken.append(f"{where} no such file")
                elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
                    broken.append(f"{where} no heading with anchor #{anchor}")
    return broken


def test_github_slugs_of_kanon_headings() -> None:
    assert github_slug("The `k_anonymous` materialization: fail closed") == (
        "the-k_anonymous-materialization-fail-closed")
    assert github_slug("The trail against your project's settings") == "the-trail-against-your-projects-settings"
    assert github_slug("One release, from `dbt run` to the swap") == "one-release-from-dbt-run-to-the-swap"
    assert github_slug("The attacker's audit: `python -m kanon_tools attack`") == (
        "the-attackers-audit-python--m-kanon_tools-attack")


def test_every_relative_link_in_the_docs_resolves() -> None:
    pages = _doc_pages(ROOT)
    assert ROOT / "README.md" in pages and len(pages) > 5
    assert broken_links(pages, ROOT) == []


def test_a_broken_link_or_anchor_is_found(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# A page\n\n## Its `part`: one\n\n```sh\n# not a heading\n```\n")
    (tmp_path / "README.md").write_text(
        "# Top\n\n[ok](docs/page.md#its-part-one) [ok](#top) [web](https://example.com/x#y) `[code](nowhere.md)`\n"
        "[gone](docs/missing.md) [bad anchor](docs/page.md#not-a-heading)\n"
        "```md\n[in a fence](nowhere.md)\n```\n")
    found = broken_links(_doc_pages(tmp_path), tmp_path)
    assert found == ["README.md: (docs/missing.md) no such file",
                     "README.md: (docs/page.md#not-a-heading) no heading with anchor #not-a-heading"]


def test_the_makefile_exports_the_example_s_public_noise_key() -> None:
    # `make demo` builds the example's noisy twin with this key; the suite uses the same one
    from kanon_tools.noise import DEMO_KEY

    assert f"export KANON_NOISE_KEY ?= {DEMO_KEY}\n" in (ROOT / "Makefile").read_text()
