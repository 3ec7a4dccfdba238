"""app/'s import graph has no cycle: every import counts, function-level and importlib.import_module("...") too.

A cycle hidden in a function or an importlib call still ties its modules
together: none of them can be read, tested or moved alone, and which one
loads first decides what works. The graph is built from the source with
ast, so no module is imported to judge it.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"


def module_name(path: Path) -> str:
    """Return the dotted name of a file under the project root (a package is its __init__)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def known_modules(app: Path = APP) -> dict[str, Path]:
    """Return every module and package of app/ (simulator included) by dotted name."""
    return {module_name(path): path for path in sorted(app.rglob("*.py"))}


def _absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    """Resolve a relative from-import's module against the importing module."""
    if not node.level:
        return node.module or ""
    base = here.split(".") if is_package else here.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported(tree: ast.AST, here: str, is_package: bool, known) -> set[str]:
    """Return the app modules a module's source imports, wherever the import stands.

    A package's __init__ runs before any of its modules, so the edge from a
    module to the packages it lives in is not counted: only what it names.
    """
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, here, is_package)
            # `from app.bot import presend` imports the module app.bot.presend; a name that is no
            # module (`from app.telegram import Outbox`) is read from the package's __init__.
            names = {f"{base}.{alias.name}" for alias in node.names}
            found.update(names & set(known))
            if names - set(known):
                found.add(base)
        elif (isinstance(node, ast.Call) and _is_import_module(node.func) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.add(node.args[0].value)
    return {name for name in found if name in known and name != here}


def _is_import_module(func: ast.expr) -> bool:
    """Tell whether a call is importlib.import_module (or a bare import_module imported from it)."""
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return isinstance(func, ast.Name) and func.id == "import_module"


def import_graph(app: Path = APP) -> dict[str, set[str]]:
    """Return module -> the app modules it imports."""
    known = known_modules(app)
    return {name: imported(ast.parse(path.read_text(encoding="utf-8"), str(path)), name,
                           path.name == "__init__.py", known)
            for name, path in known.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Return one import cycle as [a, b, ..., a], or None when the graph has none (iterative DFS)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


def test_the_graph_counts_every_kind_of_import():
    graph = import_graph()
    assert "app.simulator" in graph and "app.bot.router" in graph
    assert "app.bot.callback_data" in graph["app.bot.router"]
    tree = ast.parse("def f():\n    from . import keyboards\n    importlib.import_module('app.bot.router')\n")
    assert imported(tree, "app.bot.presend", False, graph) == {"app.bot.keyboards", "app.bot.router"}
    tree = ast.parse("from app.telegram import Outbox, errors\nfrom app.bot import presend")
    assert imported(tree, "app.web.x", False, graph) == {"app.telegram", "app.telegram.errors", "app.bot.presend"}


def test_find_cycle_names_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_app_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)
