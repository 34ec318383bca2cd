"""The code's structure: dependencies run one way and only the engine and games name a game.

The layers (``docs/architecture.md``): engine ← games ← clubs ← outbox ← ladder ← matches ←
sheets ← tournaments ← leagues, config on top. ``lint-imports`` checks them with the contracts in
``pyproject.toml``; the graph import-linter builds (grimp) is searched here for any circle of
module imports, also inside a layer.
"""

import ast
import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "config",
    "engine",
    "games",
    "clubs",
    "outbox",
    "ladder",
    "matches",
    "friends",
    "learn",
    "sheets",
    "tournaments",
)
GAME_NAMES = {"bao2", "guandan", "honger", "shuangkou2"}


def _production_files():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def test_layers_contract_holds():
    done = subprocess.run(
        [sys.executable, "-m", "importlinter.cli", "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_import_circle_among_modules():
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    edges = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            # a package's __init__ importing its own submodules is how packages are built
            if not imported.startswith(module + "."):
                edges.add_edge(module, imported)
    circles = [c for c in nx.simple_cycles(edges) if len(c) > 1]
    assert circles == [], "\n".join(" -> ".join(c + c[:1]) for c in circles[:20])


def _names_a_game(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in GAME_NAMES
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        # Variant.HONGER names a game as well (Variant.values does not)
        return node.value.id == "Variant" and node.attr.lower() in GAME_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_a_game(e) for e in node.elts)
    return False


def test_only_engine_and_games_compare_against_a_game_name():
    found = []
    for path in _production_files():
        if path.relative_to(ROOT).parts[0] in ("engine", "games"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Compare) and any(
                _names_a_game(side) for side in [node.left, *node.comparators]
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == [], "compares against a game name: " + ", ".join(found)


def test_names_a_game_sees_comparisons():
    tree = ast.parse('v == "honger" or v in ("bao2", "x") or v is Variant.GUANDAN or v == "y"')
    compares = [n for n in ast.walk(tree) if isinstance(n, ast.Compare)][:3]
    assert len(compares) == 3
    assert all(any(_names_a_game(s) for s in [c.left, *c.comparators]) for c in compares)
