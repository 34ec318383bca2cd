"""The code's structure: dependencies run one way and only the engine and games name a game
(the page scripts in ``static/`` read a game's facts instead).

The layers (``docs/architecture.md``): engine ← games ← clubs ← outbox ← ladder ← matches ←
friends | learn ← sheets ← tournaments ← leagues, config on top. ``lint-imports`` checks them
with the contracts in ``pyproject.toml``; the graph import-linter builds (grimp) is searched here
for any circle of module imports, also inside a layer. URL modules name other apps in strings
(``include("app.urls")``), which no import checker sees: they are checked here against the same
layers, and every app's URLs and API follow one layout.
"""

import ast
import functools
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import grimp
import networkx as nx
from django.conf import settings

ROOT = Path(__file__).resolve().parents[1]
_LINTER = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
#: Every package of the project, as import-linter knows them (the apps and ``config``).
PACKAGES = tuple(_LINTER["root_packages"])
#: The layers from the top (``config``) down; ``"friends | learn"`` are siblings that may not
#: use each other.
LAYERS = next(c["layers"] for c in _LINTER["contracts"] if c["type"] == "layers")
GAME_NAMES = {"bao2", "guandan", "honger", "shuangkou2"}


def _production_files():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


class _Scan(NamedTuple):
    """What the checks below read of one module, found in one walk over its syntax tree."""

    compares: list[int]  # lines of comparisons against a game name
    cases: list[int]  # lines of ``case`` clauses naming a game
    bench: list[int]  # lines importing bench/
    defined: set[str]  # the private names it defines
    # its uses of private names, in the walk's order: ``(line, text, None)`` for an import of
    # the engine's private side, ``(line, None, name)`` for an attribute read of ``name``
    uses: list[tuple[int, str | None, str | None]]


def _scan(nodes: Iterable[ast.AST]) -> _Scan:
    found = _Scan([], [], [], set(), [])
    for node in nodes:
        if isinstance(node, ast.Compare):
            if any(_names_a_game(side) for side in [node.left, *node.comparators]):
                found.compares.append(node.lineno)
        elif isinstance(node, ast.match_case):
            for pattern in ast.walk(node.pattern):
                if isinstance(pattern, ast.MatchValue) and _names_a_game(pattern.value):
                    found.cases.append(node.pattern.lineno)
                    break
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.defined.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.defined.add(node.id)
        elif isinstance(node, ast.Attribute):
            if isinstance(node.ctx, ast.Store):
                found.defined.add(node.attr)
            if _private(node.attr):
                found.uses.append((node.lineno, None, node.attr))
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "engine" and any(_private(p) for p in parts):
                    found.uses.append((node.lineno, f"import {alias.name}", None))
        elif isinstance(node, ast.ImportFrom):
            names = [node.module] if node.level == 0 and node.module else []
            if (node.module or "").split(".")[0] == "engine":
                if any(_private(part) for part in node.module.split(".")):
                    found.uses.append((node.lineno, f"from {node.module}", None))
                found.uses.extend(
                    (node.lineno, a.name, None) for a in node.names if _private(a.name)
                )
        else:
            continue
        if any(name == "bench" or name.startswith("bench.") for name in names):
            found.bench.append(node.lineno)
    found.defined.intersection_update({n for n in found.defined if _private(n)})
    return found


@functools.cache
def _scanned(path: Path) -> _Scan:
    """:func:`_scan` of the module at ``path``, parsed and walked once for all the checks of
    this file (walking every module once per check was most of their time)."""
    return _scan(ast.walk(ast.parse(path.read_text(), str(path))))


def test_layers_contract_holds():
    done = subprocess.run(
        [sys.executable, "-m", "importlinter.cli", "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_import_circle_among_modules():
    # imports under ``if TYPE_CHECKING:`` name types for the checker and never run
    graph = grimp.build_graph(*PACKAGES, cache_dir=None, exclude_type_checking_imports=True)
    edges = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            # a package's __init__ importing its own submodules is how packages are built
            if not imported.startswith(module + "."):
                edges.add_edge(module, imported)
    circles = [c for c in nx.simple_cycles(edges) if len(c) > 1]
    assert circles == [], "\n".join(" -> ".join(c + c[:1]) for c in circles[:20])


def test_selectors_never_import_services():
    """Data flows one way inside an app: the services read through the selectors, never the
    reverse (in tournaments the selectors once imported the round services, which the
    schedule reached through the selectors again)."""
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    found = []
    for package in PACKAGES:
        selectors, services = f"{package}.selectors", f"{package}.services"
        if selectors in graph.modules and services in graph.modules:
            if graph.chain_exists(importer=selectors, imported=services, as_packages=True):
                found.append(package)
    assert found == [], "selectors importing services: " + ", ".join(found)


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
        found += [f"{path.relative_to(ROOT)}:{line}" for line in _scanned(path).compares]
    assert found == [], "compares against a game name: " + ", ".join(found)


def bench_imports(source: str) -> list[int]:
    """Lines of a module that import the top-level ``bench`` folder (``import bench.x``,
    ``from bench import x``, ``from bench.x import y``, also inside a function)."""
    return _scan(ast.walk(ast.parse(source))).bench


def test_no_production_module_imports_the_benchmarks():
    """bench/ sits outside the layers: it may use every app, no app (nor config) uses it."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _production_files()
        for line in _scanned(path).bench
    ]
    assert found == [], "imports bench/: " + ", ".join(found)


def test_the_bench_import_check_sees_each_form():
    source = (
        "import bench.tables\n"
        "from bench import loadtest\n"
        "def f():\n"
        "    from bench.ratings import simulate\n"
        "from benchmarks import x\n"
        "from .bench import y\n"
    )
    assert bench_imports(source) == [1, 2, 4]


def test_names_a_game_sees_comparisons():
    tree = ast.parse('v == "honger" or v in ("bao2", "x") or v is Variant.GUANDAN or v == "y"')
    compares = [n for n in ast.walk(tree) if isinstance(n, ast.Compare)][:3]
    assert len(compares) == 3
    assert all(any(_names_a_game(s) for s in [c.left, *c.comparators]) for c in compares)


def _rank(package: str) -> int | None:
    """How low ``package`` sits (0 is the top layer); None if it is not a project package."""
    for i, layer in enumerate(LAYERS):
        if package in (name.strip() for name in layer.split("|")):
            return i
    return None


def _may_use(user: str, used: str) -> bool:
    """Whether package ``user`` may name package ``used`` (its own, or one in a lower layer)."""
    if user == used or _rank(used) is None:
        return True
    return _rank(user) is not None and _rank(used) > _rank(user)


def _app_of(dotted: str) -> str:
    return dotted.split(".", 1)[0]


def url_includes_against_the_order(package: str, source: str) -> list[str]:
    """The apps a URL module of ``package`` (its text ``source``) names against the layer
    order: in ``include("<app>....")`` (also an ``include(("<app>...", namespace))``) and in the
    modules it imports its views from."""
    found = []
    for node in ast.walk(ast.parse(source)):
        named: list[tuple[str, int]] = []
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "include":
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Tuple) and arg.elts:
                arg = arg.elts[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                named.append((arg.value, node.lineno))
        elif isinstance(node, ast.ImportFrom) and node.module:
            named.append((node.module, node.lineno))
        elif isinstance(node, ast.Import):
            named += [(alias.name, node.lineno) for alias in node.names]
        for dotted, line in named:
            if not _may_use(package, _app_of(dotted)):
                found.append(f"{package} line {line}: {dotted}")
    return found


def _url_modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*urls.py")):
            yield package, path


def test_every_app_is_in_the_package_list_and_the_layers():
    project_apps = {
        name
        for name in settings.INSTALLED_APPS
        if "." not in name and (ROOT / name / "apps.py").exists()
    }
    assert project_apps | {"config", "engine"} == set(PACKAGES)
    assert {"leagues", "learn", "friends"} <= project_apps
    assert all(_rank(package) is not None for package in PACKAGES)


def test_no_url_module_includes_a_higher_app():
    found = []
    for package, path in _url_modules():
        found += url_includes_against_the_order(package, path.read_text())
    assert found == [], "URLs against the layer order: " + ", ".join(found)


def test_the_url_check_sees_an_include_against_the_order():
    ladder_urls = 'urlpatterns = [path("", include("tournaments.urls"))]'
    assert url_includes_against_the_order("ladder", ladder_urls) == [
        "ladder line 1: tournaments.urls"
    ]
    namespaced = 'urlpatterns = [path("", include(("leagues.urls", "leagues")))]'
    assert url_includes_against_the_order("matches", namespaced) == ["matches line 1: leagues.urls"]
    siblings = "from learn import views\n"
    assert url_includes_against_the_order("friends", siblings) == ["friends line 1: learn"]
    fine = 'from ladder import views\nurlpatterns = [path("", include("clubs.urls"))]'
    assert url_includes_against_the_order("tournaments", fine) == []
    assert url_includes_against_the_order("config", 'include("leagues.urls")') == []


def test_config_mounts_every_app_in_the_layer_order():
    from config import urls

    pages = [module for _prefix, module in urls.PAGES]
    with_pages = [p for p in PACKAGES if p != "config" and (ROOT / p / "urls.py").exists()]
    assert {_app_of(m) for m in pages} == set(with_pages)
    with_api = [p for p in PACKAGES if (ROOT / p / "api" / "urls.py").exists()]
    assert list(urls.APIS) == [f"{p}.api.urls" for p in sorted(with_api, key=_rank, reverse=True)]
    ranks = [_rank(_app_of(m)) for m in pages]
    assert ranks == sorted(ranks, reverse=True), "PAGES is not in the layer order"


def test_every_api_has_one_layout():
    """An app's API is the package ``<app>/api/`` with ``urls.py``, ``views.py`` and
    ``serializers.py``; no app keeps an ``api.py`` or ``api_urls.py`` beside it, and no page
    URL module routes API views."""
    found = []
    for package in PACKAGES:
        base = ROOT / package
        for stray in ("api.py", "api_urls.py"):
            if (base / stray).exists():
                found.append(f"{package}/{stray}")
        if (base / "api").is_dir():
            for part in ("__init__.py", "urls.py", "views.py", "serializers.py"):
                if not (base / "api" / part).exists():
                    found.append(f"{package}/api/{part} missing")
        if (base / "urls.py").exists() and _imports_an_api((base / "urls.py").read_text()):
            found.append(f"{package}/urls.py routes its API")
    assert found == [], ", ".join(found)


def _imports_an_api(source: str) -> bool:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            names = [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        if any(".api" in name.replace("_", ".") for name in names):
            return True
    return False


#: The namespace of each app's page names (``sheets`` kept its older ``scoresheet``).
NAMESPACES = {
    "ladder": "ladder",
    "matches": "matches",
    "friends": "friends",
    "learn": "learn",
    "reviews": "reviews",
    "scoresheet": "sheets",
    "tournaments": "tournaments",
    "leagues": "leagues",
    "outbox": "outbox",
    "records": "records",
    "officials": "officials",
}
_URL_NAME = re.compile(r"""['"]([a-z_]+):[a-z_]+['"]""")
#: Links of a lower app's page to a higher app's page: none. A higher app adds its link or
#: section to a lower app's page through a hook (``clubs.page_parts``, as the club page's
#: sections are added: ``clubs.views.CLUB_PAGE_SECTIONS``).
KNOWN_UPWARD_URL_NAMES: set[tuple[str, str]] = set()


def url_names_against_the_order(package: str, text: str) -> list[str]:
    """The namespaces of higher apps' pages that a module or template of ``package`` names
    (``reverse("tournaments:detail")``, ``{% url 'leagues:list' %}``)."""
    found = []
    for match in _URL_NAME.finditer(text):
        app = NAMESPACES.get(match.group(1))
        if app is not None and not _may_use(package, app):
            found.append(match.group(1))
    return found


def test_no_page_links_by_name_to_a_higher_app():
    found = set()
    for path in _production_files():
        package = path.relative_to(ROOT).parts[0]
        for name in url_names_against_the_order(package, path.read_text()):
            found.add((str(path.relative_to(ROOT)), name))
    for path in sorted((ROOT / "templates").rglob("*.html")):
        package = path.relative_to(ROOT / "templates").parts[0]
        if _rank(package) is None:
            continue  # the site's own templates (base.html, errors) sit with config, on top
        for name in url_names_against_the_order(package, path.read_text()):
            found.add((str(path.relative_to(ROOT)), name))
    assert found - KNOWN_UPWARD_URL_NAMES == set()


def test_the_url_name_check_sees_a_lower_app_naming_a_higher_page():
    ladder_template = "<a href=\"{% url 'tournaments:detail' t.pk %}\">"
    assert url_names_against_the_order("ladder", ladder_template) == ["tournaments"]
    assert url_names_against_the_order("leagues", 'reverse("tournaments:detail")') == []
    assert url_names_against_the_order("matches", 'f"ladder:{pk}:count"') == []


# -- variant branches and the engine's private names (issue 42, point 3) ------------------------


def game_name_cases(source: str) -> list[int]:
    """Lines of ``case`` clauses of a ``match`` statement that name a game (``case "bao2":``,
    ``case Variant.HONGER:``, ``case "guandan" | "bao2":``): a branch on a variant name that the
    comparison check does not see."""
    return _scan(ast.walk(ast.parse(source))).cases


def test_only_engine_and_games_match_on_a_game_name():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _production_files()
        if path.relative_to(ROOT).parts[0] not in ("engine", "games")
        for line in _scanned(path).cases
    ]
    assert found == [], "a match statement on a game name: " + ", ".join(found)


def test_the_match_check_sees_a_case_on_a_game_name():
    source = (
        "match v:\n"
        '    case "honger":\n'
        "        pass\n"
        '    case "x" | "bao2":\n'
        "        pass\n"
        "    case Variant.GUANDAN:\n"
        "        pass\n"
        '    case "chess" | _:\n'
        "        pass\n"
    )
    assert game_name_cases(source) == [2, 4, 6]


_JS_GAME = "|".join(sorted(GAME_NAMES))
#: A script's branch on a game's name: a comparison with one (either side, loose or strict) or
#: a ``case`` of a ``switch`` naming one.
_JS_GAME_BRANCH = re.compile(
    rf"""(?:[=!]==?\s*["'`](?:{_JS_GAME})["'`])"""
    rf"""|(?:["'`](?:{_JS_GAME})["'`]\s*[=!]==?)"""
    rf"""|(?:\bcase\s+["'`](?:{_JS_GAME})["'`]\s*:)"""
)


def js_game_branches(source: str) -> list[int]:
    """Lines of a script that branch on a game's name (``o.variant === "bao2"``,
    ``"honger" !== v``, ``case "guandan":``): the page's scripts read the game's facts the server
    sends (``games.variants.page_facts``) instead."""
    return [
        number for number, line in enumerate(source.splitlines(), 1) if _JS_GAME_BRANCH.search(line)
    ]


def test_no_script_branches_on_a_game_name():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "static").rglob("*.js"))
        for line in js_game_branches(path.read_text())
    ]
    assert found == [], "a script branches on a game name: " + ", ".join(found)


def test_the_script_check_sees_each_form_of_branch():
    source = (
        'if (o.variant === "bao2") x();\n'
        "const t = 'honger' != v;\n"
        "switch (v) { case `guandan`: break; }\n"
        'if (FIELDS.has("bao2")) y();\n'
        'say(W, "shuangkou2");\n'
        'if (v == "shuangkou2") z();\n'
    )
    assert js_game_branches(source) == [1, 2, 3, 6]


#: Private names of other libraries that the platform may read on its own objects (Django's
#: model ``_meta`` and ``_state``; a named tuple's public ``_replace``, ``_asdict``...).
NOT_ENGINE_PRIVATE = {"_meta", "_state", "_replace", "_asdict", "_fields", "_make"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _defined_private_names(source: str) -> set[str]:
    """The private names a module defines: functions, classes, module or class constants and
    the attributes it sets (``self._x = ...``)."""
    return _scan(ast.walk(ast.parse(source))).defined


def private_engine_uses(source: str, engine_private: set[str]) -> list[str]:
    """What ``source`` (a module outside ``engine/``) uses of the engine's private side: an
    import of a private name or of a private engine module (``engine.bots._moves``,
    ``engine.variants._bao2_deal``), and an attribute read of a private name the engine
    defines (``deal._execute``), given ``engine_private`` (the engine's private names that the
    rest of the project does not define for itself)."""
    return _private_uses(_scan(ast.walk(ast.parse(source))), engine_private)


def _private_uses(scan: _Scan, engine_private: set[str]) -> list[str]:
    return [
        f"{line}: {text}" if text is not None else f"{line}: .{attr}"
        for line, text, attr in scan.uses
        if text is not None or attr in engine_private
    ]


def _engine_private_names() -> set[str]:
    engine = set()
    for path in (ROOT / "engine").rglob("*.py"):
        engine |= _scanned(path).defined
    elsewhere = set()
    for path in [*_production_files(), *(ROOT / "tests").rglob("*.py")]:
        if path.relative_to(ROOT).parts[0] != "engine":
            elsewhere |= _scanned(path).defined
    return engine - elsewhere - NOT_ENGINE_PRIVATE


def test_no_private_engine_name_is_used_outside_the_engine():
    engine_private = _engine_private_names()
    assert {"_validate", "_bomb_order", "_RANK_INDEX"} <= engine_private
    outside = [p for p in _production_files() if p.relative_to(ROOT).parts[0] != "engine"]
    outside += [p for p in (ROOT / "tests").rglob("*.py") if "engine" not in p.parts]
    found = [
        f"{path.relative_to(ROOT)}:{use}"
        for path in outside
        for use in _private_uses(_scanned(path), engine_private)
    ]
    assert found == [], "private engine names used outside engine/: " + ", ".join(found)


def test_the_private_name_check_sees_each_form():
    engine_private = {"_validate", "_RANK_INDEX"}
    source = (
        "from engine.variants.guandan import _RANK_INDEX, GuandanRules\n"
        "from engine.bots._moves import Moves\n"
        "import engine.variants._bao2_deal\n"
        "plan = deal._validate(action)\n"
        "deal.apply_unchecked(action, plan)\n"
        "from bench.tables import _user\n"
        "table._state.db\n"
    )
    assert private_engine_uses(source, engine_private) == [
        "1: _RANK_INDEX",
        "2: from engine.bots._moves",
        "3: import engine.variants._bao2_deal",
        "4: ._validate",
    ]
