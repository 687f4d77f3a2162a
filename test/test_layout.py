"""The package's shape, as the next maintainer needs it:

* the import graph has no circles: every module can be read, tested and changed from the ones
  below it (modules are nodes, ``import`` / ``from ... import`` statements anywhere in a module,
  deferred imports included, are edges; a package's ``__init__`` re-exports are left out: they
  import their own modules by design);
* no module is longer than 700 lines (split along its seams): the package's, the tests' and
  the benchmarks';
* outside ``core/model.py`` nothing reads a model's private attributes (``model._x``): the
  algorithms read the model's public data;
* every module of the package is named in the docs (the layout of docs/design.md, the demo's
  in docs/demo.md), so that a reader finds what it is for.
"""

import ast
import os

PACKAGE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "robot_dynamics"
)


def _python_files(*tops):
    """Path of every Python file below the folders ``tops``."""
    for top in tops:
        for folder, _, files in os.walk(top):
            yield from (os.path.join(folder, name) for name in files if name.endswith(".py"))


def _modules():
    """module name -> path of every module of the package (``__init__`` under the package)."""
    root = os.path.dirname(PACKAGE)
    found = {}
    for path in _python_files(PACKAGE):
        module = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
        found[module.removesuffix(".__init__")] = path
    return found


def _imports(module, path, modules):
    """Modules of the package that ``module`` imports."""
    is_package = path.endswith("__init__.py")
    package = module if is_package else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1] + ([node.module] if node.module else [])
                target = ".".join(base)
            else:
                target = node.module or ""
            candidates = [target] + [f"{target}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found.update(c for c in candidates if c in modules and c != module)
    return found


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, result = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return result


def test_no_import_circles():
    modules = _modules()
    plain = {m for m, p in modules.items() if not p.endswith("__init__.py")}
    graph = {m: _imports(m, modules[m], modules) & plain for m in plain}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


MAX_LINES = 700


def _counted_files():
    """Every Python file of the package, the tests and the benchmarks."""
    root = os.path.dirname(PACKAGE)
    return _python_files(PACKAGE, os.path.join(root, "test"), os.path.join(root, "benchmarks"))


def test_no_module_over_700_lines():
    long = {}
    for path in _counted_files():
        with open(path, encoding="utf-8") as fh:
            count = sum(1 for _ in fh)
        if count > MAX_LINES:
            long[os.path.relpath(path, os.path.dirname(PACKAGE))] = count
    assert long == {}


def test_the_line_count_reaches_the_tests_and_the_benchmarks():
    files = {os.path.basename(path) for path in _counted_files()}
    assert {"test_layout.py", "bench_core.py", "pipeline.py"} <= files


def _private_model_reads(path):
    """(line, text) of every ``<...>model._name`` attribute read in a module."""
    found = []
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and (
                (isinstance(node.value, ast.Name) and node.value.id == "model")
                or (
                    isinstance(node.value, ast.Attribute) and node.value.attr in ("model", "_model")
                )
            )
        ):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_only_the_model_reads_its_private_attributes():
    reads = {
        module: _private_model_reads(path)
        for module, path in _modules().items()
        if module != "robot_dynamics.core.model"
    }
    assert {m: r for m, r in reads.items() if r} == {}


def test_the_private_read_finder_finds_one(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("def f(model, self):\n    return model._tree, self._model._kin, model.n\n")
    assert _private_model_reads(str(path)) == [(2, "model._tree"), (2, "self._model._kin")]


def test_every_module_is_named_in_the_docs():
    root = os.path.dirname(PACKAGE)
    docs = ""
    for name in sorted(os.listdir(os.path.join(root, "docs"))):
        if name.endswith(".md"):
            with open(os.path.join(root, "docs", name), encoding="utf-8") as fh:
                docs += fh.read()
    unnamed = [
        os.path.relpath(path, root)
        for path in _python_files(PACKAGE)
        if os.path.basename(path) not in ("__init__.py", "__main__.py")
        and f"`{os.path.basename(path)}`" not in docs
        and f"/{os.path.basename(path)}`" not in docs
    ]
    assert unnamed == []
