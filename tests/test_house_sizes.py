"""The house's size rules over app/ (the simulator aside): no module over 300 lines, no function over 50."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"
EXEMPT = APP / "simulator"  # a stand-in for Telegram, not the product
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 50


def modules() -> list[Path]:
    """Return app/'s Python files but the simulator's."""
    return sorted(path for path in APP.rglob("*.py") if EXEMPT not in path.parents)


def function_sizes(path: Path):
    """Yield (qualified name, first line, lines) of every function and method, from its def to its last line."""
    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}."
                if not isinstance(child, ast.ClassDef):
                    yield f"{prefix}{child.name}", child.lineno, child.end_lineno - child.lineno + 1
            yield from walk(child, name)

    yield from walk(ast.parse(path.read_text(encoding="utf-8"), str(path)), "")


def test_the_rules_see_the_files_they_judge():
    paths = modules()
    assert APP / "bot" / "router.py" in paths and not any(EXEMPT in path.parents for path in paths)
    sizes = dict((name, lines) for name, _, lines in function_sizes(APP / "bot" / "router.py"))
    assert sizes["select"] > 20 and sizes["command_of"] == 6


def test_no_module_is_over_300_lines():
    long = [f"{path.relative_to(ROOT)}: {n} lines" for path in modules()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert not long, "modules over 300 lines:\n" + "\n".join(long)


def test_no_function_is_over_50_lines():
    long = [f"{path.relative_to(ROOT)}:{line} {name}: {n} lines" for path in modules()
            for name, line, n in function_sizes(path) if n > MAX_FUNCTION_LINES]
    assert not long, "functions over 50 lines:\n" + "\n".join(long)
