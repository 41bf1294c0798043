"""The rulebook in ``docs/rules/``: every rule the code cites resolves to a page of it (issue 17 item 6).

The code cites RULES items ("RULES D1.4", "C3.7", ranges such as "C1.3-C1.6" or "D1.3-4", test names such
as ``test_d4_2_...``), RULES sections ("RULES D2", "RULES C") and seed sections ("seed 000 §5"). The source
documents are not shipped; ``docs/rules/`` restates them, one page per environment
(``docs/rules/README.md`` explains the numbering). Checked here:

1. every item, section and seed section cited in ``kozel_env/``, ``agents/``, ``tests/``, ``examples/``,
   ``benchmarks/``, the README, CONTRIBUTING.md and the docs site's pages (``docs/`` outside ``docs/rules/``) is
   defined in the docs, on the page of its game;
2. the docs define each item of the RULES numbering scheme exactly once (a bold label opening a
   paragraph, ``**D1.4 Fish.**``), on its game's page, and no item outside the scheme;
3. every environment of ``kozel_env.registry.ENVIRONMENTS`` has its page, linked from the index, with the
   sections a page must have, and its Options table names real options with their real defaults.
"""
from __future__ import annotations

import ast
import dataclasses
import re
from collections import Counter
from pathlib import Path

import pytest

from kozel_env import registry

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "rules"

SCHEME = {"D1": 9, "D2": 6, "D3": 5, "D4": 5, "D5": 6, "C1": 17, "C2": 6, "C3": 7}
"""RULES.md's numbering: items per section (D1.1 .. D1.9, ..., C3.1 .. C3.7)."""
SECTION_PAGE = {"D1": "dominoes_v0", "D2": "dominoes_ffa_v0", "D3": "sea_goat_v0", "D4": "donkey_v0",
                "D5": "boneyard_v0", "C1": "beat_or_discard_v0", "C2": "queens_and_jacks_v0",
                "C3": "six_of_spades_v0", "C": "common", "D": "common"}
SEED_000_PAGE = {**{k: "dominoes_v0" for k in range(1, 9)}, 9: "dominoes_ffa_v0", 10: "sea_goat_v0",
                 11: "donkey_v0"}
"""Seed 000's sections 1-11 (the rule sections; 12-14 are examples, differences and a glossary)."""
SEED_PAGE = {"000": None, "001": "boneyard_v0", "002": "beat_or_discard_v0", "003": "queens_and_jacks_v0",
             "004": "six_of_spades_v0"}

SCANNED = ("kozel_env", "agents", "tests", "examples", "benchmarks")

ITEM = re.compile(r"(?<![\w.])([DC]\d)\.(\d{1,2})(?:\s?[-\u2013]\s?(?:\1\.)?(\d{1,2}))?(?!\d)")
SECTION = re.compile(r"(?<![\w.])([DC]\d)(?!\w|\.\d)|\bRULES ([CD])(?!\w|\.\d)")
TEST_NAME = re.compile(r"\bdef (test_\w+)")
SEED = re.compile(r"\bseed (\d{3})(?!\d)(?: §(\d+)(?:-(\d+))?)?")
DEFINITION = re.compile(r"^(?:[-*]\s+)?\*\*([DC]\d)\.(\d{1,2})\b[^*\n]*\*\*", re.M)
HEADING = re.compile(r"^#{1,6} .*$", re.M)


def _sources():
    """(path, text) of every file whose citations must resolve."""
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    files += sorted(p for p in (ROOT / "docs").rglob("*.md") if DOCS not in p.parents)
    for top in SCANNED:
        d = ROOT / top
        if d.is_dir():
            files += sorted(p for p in d.rglob("*") if p.suffix in (".py", ".md"))
    me = Path(__file__).resolve()
    return [(p, p.read_text(encoding="utf-8")) for p in files if p.is_file() and p.resolve() != me]


def _citations():
    """{"items": {item: [where]}, "sections": {...}, "seed": {(seed, section or None): [where]}}."""
    found = {"items": {}, "sections": {}, "seed": {}}

    def add(kind, key, path, text, pos):
        where = f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, pos) + 1}"
        found[kind].setdefault(key, []).append(where)

    for path, text in _sources():
        for m in ITEM.finditer(text):
            sec, a, b = m.group(1), int(m.group(2)), m.group(3)
            for n in range(a, (int(b) if b and int(b) > a else a) + 1):
                add("items", f"{sec}.{n}", path, text, m.start())
        for m in SECTION.finditer(text):
            add("sections", m.group(1) or m.group(2), path, text, m.start())
        for m in TEST_NAME.finditer(text):
            parts = m.group(1).split("_")
            for i in range(len(parts) - 1):
                if re.fullmatch(r"[dc]\d", parts[i]) and re.fullmatch(r"\d{1,2}", parts[i + 1]):
                    add("items", f"{parts[i].upper()}.{int(parts[i + 1])}", path, text, m.start())
        for m in SEED.finditer(text):
            seed, a, b = m.group(1), m.group(2), m.group(3)
            if a is None:
                add("seed", (seed, None), path, text, m.start())
            else:
                for k in range(int(a), (int(b) if b else int(a)) + 1):
                    add("seed", (seed, k), path, text, m.start())
    return found


def _pages():
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md"))}


def _definitions(pages):
    """[(item, page)] for every item label defined in the docs."""
    return [(f"{m.group(1)}.{int(m.group(2))}", name) for name, text in pages.items()
            for m in DEFINITION.finditer(text)]


def _section_labels(pages):
    """{section: {pages}} from headings that name a RULES section ("# ... (RULES D1; ...)")."""
    out = {}
    for name, text in pages.items():
        for h in HEADING.findall(text):
            for sec in re.findall(r"\bRULES ([CD]\d?)\b", h):
                out.setdefault(sec, set()).add(name)
    return out


def _seed_marked(text, seed, k):
    return re.search(rf"\bseed {seed} §{k}(?![\d-])", text) is not None


def _scheme_items():
    return {f"{s}.{n}" for s, count in SCHEME.items() for n in range(1, count + 1)}


@pytest.fixture(scope="module")
def pages():
    assert DOCS.is_dir(), f"{DOCS} is missing"
    return _pages()


@pytest.fixture(scope="module")
def cited():
    return _citations()


# -- 1. every citation in the code resolves ---------------------------------------------------------

def test_the_code_cites_rules_items_at_all(cited):
    """Guards the scanner itself: the engines cite dozens of items (a broken regex finds none)."""
    assert len(cited["items"]) >= 50 and "D1.1" in cited["items"] and "C3.7" in cited["items"]
    assert ("000", 11) in cited["seed"] and "D1" in cited["sections"]


def test_every_cited_rules_item_is_defined_on_its_games_page(pages, cited):
    defined = {}
    for item, page in _definitions(pages):
        defined.setdefault(item, set()).add(page)
    missing = {item: where[:3] for item, where in sorted(cited["items"].items()) if item not in defined}
    assert not missing, f"the code cites RULES items that docs/rules does not define: {missing}"
    wrong = {item: sorted(defined[item]) for item in cited["items"]
             if SECTION_PAGE[item.split(".")[0]] not in defined[item]}
    assert not wrong, f"items defined on the wrong page: {wrong}"


def test_every_cited_rules_section_has_its_page(pages, cited):
    labels = _section_labels(pages)
    missing = {sec: where[:3] for sec, where in sorted(cited["sections"].items())
               if SECTION_PAGE.get(sec) not in labels.get(sec, set())}
    assert not missing, f"the code cites RULES sections with no page heading naming them: {missing}"


def test_every_cited_seed_section_is_marked_on_its_page(pages, cited):
    bad = {}
    for (seed, k), where in sorted(cited["seed"].items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        if seed not in SEED_PAGE:
            bad[(seed, k)] = where[:3]
        elif seed == "000" and k is not None:
            if k not in SEED_000_PAGE or not _seed_marked(pages[SEED_000_PAGE[k]], seed, k):
                bad[(seed, k)] = where[:3]
        elif not any(f"seed {seed}" in text for text in pages.values()):
            bad[(seed, k)] = where[:3]
        elif SEED_PAGE[seed] and f"(seed {seed}" not in pages[SEED_PAGE[seed]]:
            bad[(seed, k)] = where[:3]
    assert not bad, f"seed citations with no marked place in docs/rules: {bad}"


# -- 2. the numbering scheme, each item defined once ------------------------------------------------

def test_every_item_is_defined_exactly_once(pages):
    counts = Counter(item for item, _ in _definitions(pages))
    twice = {item: n for item, n in counts.items() if n > 1}
    assert not twice, f"items defined more than once in docs/rules: {twice}"


def test_the_docs_define_exactly_the_rules_numbering_scheme(pages):
    defined = {item for item, _ in _definitions(pages)}
    expected = _scheme_items()
    assert not expected - defined, f"RULES items missing from docs/rules: {sorted(expected - defined)}"
    assert not defined - expected, f"items outside the RULES scheme: {sorted(defined - expected)}"


def test_each_item_is_on_the_page_of_its_section(pages):
    wrong = [(item, page) for item, page in _definitions(pages) if SECTION_PAGE[item.split(".")[0]] != page]
    assert not wrong, f"items on another game's page: {wrong}"


def test_every_seed_000_rule_section_is_marked_on_its_page(pages):
    unmarked = [k for k, page in SEED_000_PAGE.items() if not _seed_marked(pages[page], "000", k)]
    assert not unmarked, f"seed 000 sections not marked on their page: {unmarked}"


# -- 3. one page per environment --------------------------------------------------------------------

def test_the_pages_are_exactly_the_registered_environments(pages):
    env_pages = set(pages) - {"README", "common"}
    assert env_pages == set(registry.ENVIRONMENTS), (
        f"pages without an env: {sorted(env_pages - set(registry.ENVIRONMENTS))}; "
        f"envs without a page: {sorted(set(registry.ENVIRONMENTS) - env_pages)}")


@pytest.mark.parametrize("name", sorted(registry.ENVIRONMENTS))
def test_env_page_is_indexed_and_complete(pages, name):
    assert name in pages, f"docs/rules/{name}.md is missing"
    text = pages[name]
    assert text.startswith(f"# {name}: "), f"{name}.md must open with '# {name}: ...'"
    assert f"]({name}.md)" in pages["README"], f"docs/rules/README.md does not link {name}.md"
    sections = {sec for sec, page in SECTION_PAGE.items() if page == name}
    title = text.splitlines()[0]
    assert all(f"RULES {sec}" in title for sec in sections), f"{name}.md's title must name RULES {sections}"
    for heading in ("## Choices this library makes", "## Options"):
        assert f"\n{heading}\n" in text, f"{name}.md lacks the section '{heading}'"


def _options_table(text):
    """Rows ``(option, default text, rule)`` of the page's Options table."""
    body = text.split("\n## Options\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            rows.append((cells[0].strip("`"), cells[1].strip("`"), cells[2]))
    return rows


def _norm(v):
    return tuple(_norm(x) for x in v) if isinstance(v, (list, tuple)) else v


@pytest.mark.parametrize("name", sorted(registry.ENVIRONMENTS))
def test_options_tables_name_real_options_with_their_defaults(pages, name):
    rows = _options_table(pages[name])
    assert rows, f"{name}.md has an empty Options table"
    rules = registry.make(name).unwrapped.game.rules
    fields = {f.name for f in dataclasses.fields(rules)} - {"name"}
    defined = {item for item, _ in _definitions(pages)}
    for option, default, rule in rows:
        assert option in fields, f"{name}.md lists `{option}`, not an option of {type(rules).__name__}"
        assert _norm(ast.literal_eval(default)) == _norm(getattr(rules, option)), (
            f"{name}.md: `{option}` default {default}, the code's is {getattr(rules, option)!r}")
        assert rule in defined, f"{name}.md: option `{option}` cites {rule!r}, not an item of the docs"


def test_relative_links_between_pages_resolve(pages):
    broken = [(name, target) for name, text in pages.items()
              for target in re.findall(r"\]\(([^)#:]+?\.md)(?:#[^)]*)?\)", text)
              if not (DOCS / target).is_file()]
    assert not broken, f"broken links in docs/rules: {broken}"
