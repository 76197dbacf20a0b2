"""The code's layout: imports flow one way (no circle), and every module imports alone."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "viz")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path], *, lazy: bool = False) -> set[str]:
    """The modules of ``modules`` that ``name`` imports when it is imported: its
    module-level imports, leaving out those only type checkers read (with ``lazy``, the
    imports inside its functions too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree) if lazy else tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in modules else base)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {m for m in found if m in modules and m != name}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    circles, state, stack = [], {}, []

    def visit(u: str) -> None:
        state[u] = "open"
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == "open":
                circles.append([*stack[stack.index(v) :], v])
            elif v not in state:
                visit(v)
        stack.pop()
        state[u] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return circles


def test_no_import_circle():
    modules = _modules()
    graph = {m: _imports(m, p, modules) for m, p in modules.items()}
    assert _circles(graph) == []


#: engine's layers, lowest first (engine/__init__.py says what each holds): a module may
#: import from its own layer and those before it, never from a later one.
LAYERS = (
    ("engine._errors", "engine._text"),
    ("engine.graphs",),
    ("engine.adaptive", "engine.recording", "engine.contraction", "engine.methods",
     "engine._validate"),
    ("engine.backends",),
    ("engine.search",),
    ("engine.studies", "engine.media"),
    ("engine.testing", "engine.cli"),
)  # fmt: skip


def _layer(module: str) -> int | None:
    for k, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return k
    return None


def _upward(modules: dict[str, Path]) -> list[tuple[str, str]]:
    """Imports (module-level or inside functions) from a layer to a later one."""
    wrong = []
    for name, path in modules.items():
        here = _layer(name)
        if here is None:
            continue
        for target in _imports(name, path, modules, lazy=True):
            there = _layer(target)
            if there is not None and there > here:
                wrong.append((name, target))
    return wrong


def test_engine_imports_flow_down_its_layers():
    modules = {m: p for m, p in _modules().items() if m.startswith("engine")}
    assert all(_layer(m) is not None for m in modules if m != "engine"), [
        m for m in modules if m != "engine" and _layer(m) is None
    ]
    assert _upward(modules) == []


def test_an_upward_import_is_found(tmp_path):
    """The check itself: a graph module that imports the search is caught."""
    bad = tmp_path / "csr.py"
    bad.write_text("def f():\n    from engine.search import sssp\n")
    assert _upward({"engine.graphs.csr": bad, "engine.search": ROOT / "engine/search.py"}) == [
        ("engine.graphs.csr", "engine.search")
    ]


def test_at_most_fifteen_modules_at_the_top_of_engine():
    top = [
        p.name
        for p in (ROOT / "engine").iterdir()
        if p.suffix == ".py" or (p / "__init__.py").is_file()
    ]
    assert len(top) <= 15, sorted(top)


def test_a_planted_circle_is_found():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c", "a"]]


def test_every_module_imports_alone():
    """Each module first in a fresh interpreter's view of the project (third-party modules
    stay loaded, for speed): an import that works only after another fails here."""
    script = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m.split('.')[0] in ('engine', 'viz')]:\n"
        "        del sys.modules[loaded]\n"
        "    importlib.import_module(name)\n"
    )
    # the app is a script Panel serves; a __main__ runs its command
    names = [m for m in _modules() if m != "viz.app" and not m.endswith("__main__")]
    done = subprocess.run([sys.executable, "-c", script, *names], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
