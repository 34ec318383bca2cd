"""The documentation's relative links: every one points at a file of this repository.

Checked in ``README.md`` and every ``docs/**/*.md``: a link ``[text](target)`` whose target is
not a URL must name an existing file or folder inside the repository (so the repository stays
self-contained: no link to ``../shared``), and a ``#fragment`` on a Markdown target must name
one of that file's headings (GitHub's anchor rule). Links inside code blocks and code spans
are not links.
"""

import re
from pathlib import Path

import pytest

from config.serve import UVICORN_OPTIONS

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[(?:[^\]\n]|\][^(\n])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # http:, https:, mailto:, ws: …


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans (their brackets are not links)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def links(path: Path) -> list[str]:
    """Every link target written in a Markdown file, in order."""
    return LINK.findall(prose(path.read_text(encoding="utf-8")))


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings (a repeated heading gets ``-1``, ``-2``…)."""
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = anchor(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken(path: Path) -> list[str]:
    """The relative links of one file that do not resolve, each with the reason."""
    out = []
    for target in links(path):
        if EXTERNAL.match(target):
            continue
        name, _, fragment = target.partition("#")
        dest = (path.parent / name).resolve() if name else path
        if not dest.is_relative_to(ROOT):
            out.append(f"{target}: outside the repository")
        elif not dest.exists():
            out.append(f"{target}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            out.append(f"{target}: no heading #{fragment} in {dest.relative_to(ROOT)}")
    return out


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    assert broken(path) == []


def test_readme_points_at_the_docs():
    targets = set(links(ROOT / "README.md"))
    for doc in ("architecture", "protocol", "deploy", "benchmarks", "ratings"):
        assert f"docs/{doc}.md" in targets
    assert "docs/rules/README.md" in targets
    for game in ("bao2", "guandan", "honger", "shuangkou2"):
        assert (ROOT / "docs" / "rules" / f"{game}.md").is_file()


def test_the_checker_finds_broken_links(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "a.md").write_text("# Title here\n\n## Second `part`\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](a.md) [ok](a.md#second-part) [ok](#top) [web](https://example.com)\n"
        "[gone](b.md) [bad anchor](a.md#nothing) [out](../x.md)\n"
        "`[code](nowhere.md)`\n```\n[block](nowhere.md)\n```\n# Top\n",
        encoding="utf-8",
    )
    assert broken(page) == [
        "b.md: no such file",
        "a.md#nothing: no heading #nothing in a.md",
        "../x.md: outside the repository",
    ]


#: A line of a code block, or a code span, that starts an ASGI server.
ASGI_COMMAND = re.compile(r"^[#\s]*((daphne|uvicorn)\s.*)$", re.M)


def asgi_commands(path: Path) -> list[str]:
    """The ``daphne`` / ``uvicorn`` commands written in a Markdown file (continued lines joined)."""
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [m.group(1) for b in FENCE.finditer(text) for m in ASGI_COMMAND.finditer(b.group(0))]
    spans = [s.strip("`") for s in CODE_SPAN.findall(text)]
    return lines + [s for s in spans if re.match(r"(daphne|uvicorn)\s", s)]


def test_every_asgi_server_command_carries_the_frame_limit():
    """A plain ``uvicorn`` command in the docs passes every option of ``config.serve`` (the
    frame limit, else an oversize frame closes the connection instead of being refused
    ``too_large``; no proxy headers, no compression); ``python -m config.serve`` passes them
    by itself. The docs name no ``daphne`` command for serving."""
    commands = [command for path in DOCS for command in asgi_commands(path)]
    assert commands  # the docs do name one
    for command in commands:
        assert command.startswith("uvicorn"), command
        assert " ".join(UVICORN_OPTIONS) in " ".join(command.split()), command
