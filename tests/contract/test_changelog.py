"""CHANGELOG.md keeps up with the API: its newest version is the document's ``info.version``
(so a change of the API lands with its entry), versions are semantic and go down the file
with their dates, and each entry uses Keep a Changelog's sections only."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from service.app import API_VERSION
from service.openapi import document

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG = ROOT / "CHANGELOG.md"
VERSION = re.compile(r"^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)
SECTIONS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_the_newest_version_of_the_changelog_is_the_documents() -> None:
    text = CHANGELOG.read_text()
    versions = VERSION.findall(text)
    assert versions, "no released version"
    newest = ".".join(versions[0][:3])
    assert newest == API_VERSION == document()["info"]["version"]
    assert text.index("## [Unreleased]") < text.index(f"## [{newest}]")


def test_versions_go_down_the_file_with_their_dates() -> None:
    found = [(tuple(int(n) for n in v[:3]), date.fromisoformat(v[3]))
             for v in VERSION.findall(CHANGELOG.read_text())]
    assert found == sorted(found, reverse=True)
    assert len({v for v, _ in found}) == len(found)


def test_each_entry_uses_keep_a_changelogs_sections_only() -> None:
    headings = re.findall(r"^### (.+)$", CHANGELOG.read_text(), re.M)
    assert headings and set(headings) <= SECTIONS, set(headings) - SECTIONS
    version_headings = re.findall(r"^## (.+)$", CHANGELOG.read_text(), re.M)
    assert all(h == "[Unreleased]" or VERSION.match(f"## {h}") for h in version_headings)
