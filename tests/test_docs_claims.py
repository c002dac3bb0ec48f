"""The docs name code that exists.

Every backticked project file path (``stream/selectors.py``, ``evals/services/runs/``)
and dotted project module path (``evals.core.scenario_artifact.ScenarioArtifact``)
in ``docs/*.md`` and ``README.md`` exists; so does every one in the docstrings
of production modules, classes and functions. A dotted path resolves to a
module, then to a name defined at that module's top level (and a class's
member, one level down), or it is the name of a registered Celery task
(``evals.run_chunk``). Every import-linter contract of ``pyproject.toml`` is
named, word for word, in ``docs/architecture.md``.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "core",
    "accounts",
    "stream",
    "evals",
    "gridworld",
    "prkeepalive",
    "evalsite",
)
PATH_ROOTS = (*PACKAGES, "tests", "bench", "docs", "templates", "static", ".ci")

FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"``([^`\n]+)``|`([^`\n]+)`")
FILE_PATH = re.compile(r"^\.?[\w-]+(?:/[\w.-]+)*/?$")
DOTTED = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?=\(|$)")
CHECK_ID = re.compile(r"^[A-Za-z_]\w*\.[CEIW]\d{3}$")
TASK_NAME = re.compile(r"""shared_task\(\s*(?:[^)]*?\bname=)?["']([\w.]+)["']""")


def spans(text: str) -> Iterator[str]:
    """The backticked spans of a text, fenced code blocks left out."""
    for match in SPAN.finditer(FENCE.sub("", text)):
        yield (match.group(1) or match.group(2)).strip()


def task_names(root: Path) -> set[str]:
    """The names the project's Celery tasks are registered under."""
    names: set[str] = set()
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            if "tasks" in path.relative_to(root).parts or path.name == "tasks.py":
                names.update(TASK_NAME.findall(path.read_text(encoding="utf-8")))
    return names


def module_file(root: Path, parts: list[str]) -> Path | None:
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def top_level(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """The names a module (or class) body defines, imports included, looking
    into ``if``/``try`` blocks as Python does when it runs them."""
    names: dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names[name.id] = node
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            if isinstance(node.target, ast.Name):
                names[node.target.id] = node
        elif isinstance(node, ast.TypeAlias):
            names[node.name.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, ast.If):
            names.update(top_level(node.body))
            names.update(top_level(node.orelse))
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                names.update(top_level(block))
            for handler in node.handlers:
                names.update(top_level(handler.body))
    return names


def dotted_problem(root: Path, dotted: str, tasks: set[str]) -> str | None:
    """Why ``dotted`` names nothing in the project (None when it does)."""
    if dotted in tasks or CHECK_ID.match(dotted):
        return None
    parts = dotted.split(".")
    models = module_file(root, [parts[0], "models"])
    if len(parts) == 2 and models is not None:
        # A model's label, as Django spells it: ``evals.Run``.
        defined = top_level(ast.parse(models.read_text(encoding="utf-8")).body)
        if isinstance(defined.get(parts[1]), ast.ClassDef):
            return None
    for cut in range(len(parts), 0, -1):
        found = module_file(root, parts[:cut])
        if found is not None:
            break
    else:
        return "no such module"
    rest = parts[cut:]
    if not rest:
        return None
    names = top_level(ast.parse(found.read_text(encoding="utf-8")).body)
    node = names.get(rest[0])
    if node is None:
        return f"{'.'.join(parts[:cut])} has no module or name {rest[0]!r}"
    if (
        len(rest) > 1
        and isinstance(node, ast.ClassDef)
        and rest[1] not in top_level(node.body)
    ):
        return f"class {rest[0]} has no member {rest[1]!r}"
    return None


def span_problem(root: Path, span: str, tasks: set[str]) -> str | None:
    """Why a backticked span that looks like project code names nothing
    (None when it names something, or does not look like project code)."""
    path = re.sub(r"(::\w+|:\d+(-\d+)?)$", "", span)
    if "/" in path and FILE_PATH.match(path) and path.split("/")[0] in PATH_ROOTS:
        # A template is named from the templates folder: ``stream/index.html``.
        if (root / path).exists() or (root / "templates" / path).is_file():
            return None
        return "no such file or folder"
    match = DOTTED.match(span)
    if match and match.group(1).split(".")[0] in PACKAGES:
        return dotted_problem(root, match.group(1), tasks)
    return None


def docs_problems(root: Path) -> list[str]:
    """``file: `span`: why`` for every project path in the docs that names
    nothing."""
    tasks = task_names(root)
    problems = []
    for doc in [*sorted((root / "docs").glob("*.md")), root / "README.md"]:
        if not doc.is_file():
            continue
        for span in spans(doc.read_text(encoding="utf-8")):
            problem = span_problem(root, span, tasks)
            if problem:
                problems.append(f"{doc.relative_to(root)}: `{span}`: {problem}")
    return problems


def docstrings(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, docstring) of a module and each of its classes and functions."""
    nodes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(tree):
        if isinstance(node, nodes):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield getattr(node, "lineno", 1), text


def docstring_problems(root: Path) -> list[str]:
    """``file:line: `span`: why`` for every project path cited in a
    production docstring that names nothing."""
    tasks = task_names(root)
    problems = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            where = path.relative_to(root)
            if "migrations" in where.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for line, text in docstrings(tree):
                for span in spans(text):
                    problem = span_problem(root, span, tasks)
                    if problem:
                        problems.append(f"{where}:{line}: `{span}`: {problem}")
    return problems


def contracts_missing(root: Path) -> list[str]:
    """The import-linter contract names ``docs/architecture.md`` leaves out."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    names = [c["name"] for c in config["tool"]["importlinter"]["contracts"]]
    text = " ".join((root / "docs" / "architecture.md").read_text().split())
    return [name for name in names if " ".join(name.split()) not in text]


def test_every_project_path_in_the_docs_exists() -> None:
    assert docs_problems(ROOT) == []


def test_every_project_path_in_a_docstring_exists() -> None:
    assert docstring_problems(ROOT) == []


def test_architecture_names_every_import_contract() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["importlinter"]["contracts"]
    assert contracts_missing(ROOT) == []


def fake_project(root: Path) -> None:
    (root / "evals" / "core").mkdir(parents=True)
    (root / "evals" / "__init__.py").write_text("")
    (root / "evals" / "core" / "__init__.py").write_text("")
    (root / "evals" / "core" / "runs.py").write_text(
        '"""Runs; see ``evals.core.gone`` and ``evals/core/runs.py``."""\n'
        "from x import y as imported\n"
        "LIMIT: int = 3\n"
        "class Run:\n"
        "    size = 1\n"
        "    def close(self):\n"
        '        """Closes; ``evals.core.runs.Run.open`` does not exist."""\n'
    )
    (root / "evals" / "models.py").write_text("class Run(Model):\n    pass\n")
    (root / "templates" / "evals").mkdir(parents=True)
    (root / "templates" / "evals" / "index.html").write_text("")
    (root / "evals" / "tasks").mkdir()
    (root / "evals" / "tasks" / "runs.py").write_text(
        '@shared_task(name="evals.run_chunk", bind=True)\ndef f(): pass\n'
    )
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text(
        "`evals/core/runs.py` `evals/core/missing.py` `evals/core/` "
        "`evals.core.runs.Run.size` `evals.core.runs.LIMIT` "
        "`evals.core.runs.imported` `evals.core.runs.nothing` "
        "`evals.run_chunk(run_pk)` `evals.no_task` `orjson.dumps` "
        "`evals/<suite>/x` `python -m evals.core.runs`\n"
        "`evals.Run` `evals.Nope` `evals.W001` `evals/index.html` `evals/gone.html`\n"
        "```\nevals/core/in_a_fence.py\n```\n"
    )
    (root / "pyproject.toml").write_text(
        '[[tool.importlinter.contracts]]\nname = "Cores are pure"\n'
        '[[tool.importlinter.contracts]]\nname = "Tasks read no\\nmodels"\n'
    )
    (root / "docs" / "architecture.md").write_text("1. Tasks read no models\n")


def test_the_docs_check_names_each_missing_path(tmp_path: Path) -> None:
    fake_project(tmp_path)
    assert docs_problems(tmp_path) == [
        "docs/a.md: `evals/core/missing.py`: no such file or folder",
        "docs/a.md: `evals.core.runs.nothing`: evals.core.runs has no module"
        " or name 'nothing'",
        "docs/a.md: `evals.no_task`: evals has no module or name 'no_task'",
        "docs/a.md: `evals.Nope`: evals has no module or name 'Nope'",
        "docs/a.md: `evals/gone.html`: no such file or folder",
    ]


def test_the_docstring_check_names_file_and_line(tmp_path: Path) -> None:
    fake_project(tmp_path)
    assert docstring_problems(tmp_path) == [
        "evals/core/runs.py:1: `evals.core.gone`: evals.core has no module"
        " or name 'gone'",
        "evals/core/runs.py:6: `evals.core.runs.Run.open`: class Run has no"
        " member 'open'",
    ]


def test_a_contract_left_out_of_the_architecture_is_named(tmp_path: Path) -> None:
    fake_project(tmp_path)
    assert contracts_missing(tmp_path) == ["Cores are pure"]
