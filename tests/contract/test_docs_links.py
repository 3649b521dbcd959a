"""The docs stand on their own: every relative link resolves, and nothing points outside.

Why: users of the repository see only the repository. A link to a file that moved, an
anchor whose heading was reworded, or a pointer to the folder the project's brief came
from would each send a reader nowhere.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
#: a path into the folder beside the repository (spelled so that this file does not match)
OUTSIDE = re.compile(r"\.\./shared|(?<![\w.-])shared[/]")


def tracked_files() -> list[Path]:
    """The files git tracks, and the new ones it does not ignore."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in out.decode().split("\0") if name]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text())
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def relative_links(path: Path) -> list[str]:
    text = FENCE.sub("", path.read_text())
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def test_the_slug_of_a_heading_is_githubs() -> None:
    assert slug("Worked examples (`classic` unless said)") == "worked-examples-classic-unless-said"
    assert slug("Games, seeds and fairness") == "games-seeds-and-fairness"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_of_the_docs_resolves(doc: Path) -> None:
    broken = []
    for target in relative_links(doc):
        name, _, anchor = target.partition("#")
        path = (doc.parent / name).resolve() if name else doc
        if not path.exists() or (anchor and path.suffix == ".md"
                                 and anchor not in anchors(path)):
            broken.append(target)
    assert not broken, f"{doc.name}: {broken}"


def texts() -> Iterator[tuple[str, str]]:
    """Each text file of the repository: its path from the root, and its text."""
    for path in tracked_files():
        try:
            yield str(path.relative_to(ROOT)), path.read_text()
        except (UnicodeDecodeError, FileNotFoundError):
            continue


def test_no_file_of_the_repository_points_outside_it() -> None:
    assert not [name for name, text in texts() if OUTSIDE.search(text)]


#: the project's source documents, which live outside the repository (spelled in pieces
#: so that this file does not match itself)
SOURCE_DOCUMENTS = ("RULES" + ".md", "CONTRACT" + ".md")


def test_the_docs_name_the_rules_page_not_the_projects_source_documents() -> None:
    for doc in DOCS:
        assert "seeds/" not in doc.read_text(), f"{doc.name} mentions seeds/"


def test_no_file_of_the_repository_names_the_projects_source_documents() -> None:
    """Code, tests and docs say "the rules (docs/rules.md)" or "the API contract
    (docs/api.md)": a reader of the repository has those, not the documents they came from."""
    assert not [f"{path} names {name}" for path, text in texts()
                for name in SOURCE_DOCUMENTS if name in text]
