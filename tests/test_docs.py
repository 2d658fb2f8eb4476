"""Tests for the documentation: pictures up to date, nav pages present, examples collected."""

import importlib.util
import re
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PICTURES = DOCS / "pictures"


def load_script(name: str):
    """Import a module of ``scripts/`` by file name."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def drawn() -> dict[str, str]:
    """What scripts/make_pictures.py draws now."""
    return load_script("make_pictures").pictures()


def nav_pages() -> list[str]:
    """The page files named in mkdocs.yml's nav."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = text.split("\nnav:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\s*- [^:]+: (\S+\.md)$", nav, flags=re.MULTILINE)


def markdown_pages() -> list[Path]:
    """Every Markdown page of the documentation."""
    return sorted(DOCS.glob("*.md"))


class TestPictures:
    def test_committed_pictures_match_the_script(self, drawn):
        """Every committed picture is exactly what the script draws (run it after a change)."""
        for name, svg in drawn.items():
            path = PICTURES / name
            assert path.exists(), f"{name} is missing: run python scripts/make_pictures.py"
            assert path.read_text(encoding="utf-8") == svg, (
                f"docs/pictures/{name} is out of date: run python scripts/make_pictures.py"
            )

    def test_no_stale_pictures(self, drawn):
        """No picture is committed that the script no longer draws."""
        assert sorted(path.name for path in PICTURES.glob("*.svg")) == sorted(drawn)

    def test_pictures_are_well_formed_and_titled(self, drawn):
        """Each picture is well-formed SVG whose title says in words what it shows."""
        for name, svg in drawn.items():
            root = ET.fromstring(svg)
            title = root.find("{http://www.w3.org/2000/svg}title")
            assert title is not None and len(title.text or "") > 20, name

    @pytest.mark.parametrize(
        ("name", "expected"),
        [
            ("sixteen-points.svg", ["+16", "+1", "bid 2", "bid 1", "hearts are trumps"]),
            ("triple-board.svg", ["Board ×3", "Board ×2", "Board ×1", "+150", "-50"]),
            ("big-joker-lead.svg", ["BIG", "joker", "may play: K♥", "North"]),
            ("little-joker-lead.svg", ["LITTLE", "may play: 5♥"]),
            ("little-joker-must-play-big.svg", ["may play: BIG", "spades are trumps"]),
            ("little-joker-beaten.svg", ["East, wins", "North, led"]),
            ("north-hand.svg", ["the king of hearts, a trump", "spades", "clubs", "hearts"]),
            ("first-lead.svg", ["may play: Q♠", "South"]),
            ("score-sheet.svg", ["Score sheet", "14 of 14 deals"]),
        ],
    )
    def test_pictures_say_what_they_show(self, drawn, name, expected):
        """Each documentation picture contains the words of its example."""
        for words in expected:
            assert words in drawn[name], f"{name} lacks {words!r}"

    def test_pages_show_only_existing_pictures(self):
        """Every picture a page shows exists, and every picture is shown somewhere."""
        shown = set()
        for page in [*markdown_pages(), ROOT / "README.md"]:
            for target in re.findall(r"\]\((?:docs/)?(pictures/[^)]+\.svg)\)", page.read_text()):
                assert (DOCS / target).exists(), f"{page.name} shows a missing {target}"
                shown.add(Path(target).name)
        assert shown == {path.name for path in PICTURES.glob("*.svg")}


class TestSite:
    def test_every_nav_page_exists(self):
        """Each page in mkdocs.yml's nav is a file of docs/."""
        pages = nav_pages()
        assert "index.md" in pages and "api.md" in pages
        for page in pages:
            assert (DOCS / page).exists(), f"the nav names {page}, which does not exist"

    def test_every_page_is_in_the_nav(self):
        """No page of docs/ is left out of the nav."""
        assert sorted(path.name for path in markdown_pages()) == sorted(nav_pages())

    def test_no_web_fonts(self):
        """The theme fetches no fonts, so the site builds and reads offline."""
        assert re.search(r"^\s+font: false$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)

    def test_doc_examples_are_collected(self):
        """pytest runs the pages' examples: docs is a test path and *.md files are doctests."""
        options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
        assert "docs" in options["ini_options"]["testpaths"]
        assert "--doctest-glob=*.md" in options["ini_options"]["addopts"]

    def test_pages_with_examples(self):
        """The pages that teach the API carry runnable examples."""
        for name in ("getting-started.md", "variants.md", "examples.md", "cli.md"):
            assert ">>> " in (DOCS / name).read_text(), name

    def test_readme_links_the_docs_and_shows_a_picture(self):
        """The README says how to serve the docs and shows a picture after its first paragraph."""
        readme = (ROOT / "README.md").read_text()
        assert "mkdocs serve" in readme
        first_paragraph_end = readme.index("\n\n", readme.index("The reference rules engine"))
        picture = readme.index("](docs/pictures/")
        assert first_paragraph_end < picture < readme.index("## Try it")


def test_doctest_fences():
    """The API pages' griffe extension fences doctest runs, output included."""
    pytest.importorskip("griffe")
    fence = load_script("griffe_doctest_blocks").fence_doctests
    text = "Intro.\n\n>>> f(1)\n['a', 'b']\n>>> g()\n\nAfter."
    assert fence(text) == "Intro.\n\n```pycon\n>>> f(1)\n['a', 'b']\n>>> g()\n```\n\nAfter."
    assert fence("a\n    >>> x\n    1") == "a\n```pycon\n    >>> x\n    1\n```"
