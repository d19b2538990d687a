"""Layers only look down, and the product never imports the test fixtures.

.importlinter states the layers (corpus, chunking, adapters, checks, runner, reports,
the tools on top, the commands above all); `lint-imports` (import-linter) fails on any
import from a lower layer into a higher one, so a shortcut that would make the layers
lean on each other fails CI instead of growing a cycle. What import-linter cannot see is
checked here too. The scrubbers live in `scrubbers/`, installed as `scrubcheck.scrubbers`,
which import-linter cannot find from `suite/` (grimp takes top-level packages only), so
`lint-imports` runs on the package as installed: a copy of `suite/` with `scrubbers/` inside
it. The rules that product code does not import the broken test scrubbers, reaches the
reference through its public names only, and that the broken scrubbers override nothing
private of the reference, are read from the source.
"""

from __future__ import annotations

import ast
import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "suite"
CONFIG = ROOT / ".importlinter"
SCRUBBERS = ROOT / "scrubbers"
FIXTURES = "scrubcheck.scrubbers.broken"
REFERENCE = "scrubcheck.scrubbers.reference"


@pytest.fixture(scope="module")
def installed_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`scrubcheck` laid out as installed: suite/ with scrubbers/ as its `scrubbers`."""
    root = tmp_path_factory.mktemp("installed")
    skip = shutil.ignore_patterns("__pycache__", "node_modules")
    shutil.copytree(SUITE, root / "scrubcheck", ignore=skip)
    shutil.copytree(SCRUBBERS, root / "scrubcheck" / "scrubbers", ignore=skip)
    return root


def lint_imports(config: Path, tree: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("lint-imports")
    command = str(exe) if exe.exists() else shutil.which("lint-imports")
    if command is None:
        pytest.fail("lint-imports is not installed: pip install -e '.[test]'")
    # lint-imports puts its working directory first on the path: the tree is what it reads
    return subprocess.run([command, str(config), "--no-cache"], cwd=tree,
                          capture_output=True, text=True, timeout=600)


def contract_count() -> int:
    parser = configparser.ConfigParser()
    parser.read(CONFIG, encoding="utf-8")
    return sum(name.startswith("importlinter:contract:") for name in parser.sections())


def layer_names() -> list[list[str]]:
    """The layers of .importlinter, top first, each a list of module names."""
    parser = configparser.ConfigParser()
    parser.read(CONFIG, encoding="utf-8")
    raw = parser["importlinter:contract:layers"]["layers"]
    return [[name.strip().strip("()") for name in line.replace("|", ":").split(":")]
            for line in raw.strip().splitlines() if line.strip()]


def module_name(path: Path) -> str:
    parts = path.relative_to(SUITE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("scrubcheck", *parts))


def imports_of(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) for every import in `path`, relative imports made absolute."""
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            found.append((target, [alias.name for alias in node.names]))
    return found


def test_lint_imports_keeps_the_layers(installed_tree):
    run = lint_imports(CONFIG, installed_tree)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert f"{contract_count()} kept, 0 broken" in run.stdout
    assert "scrubcheck.scrubbers" in CONFIG.read_text(encoding="utf-8")


def test_the_scrubbers_are_in_the_contract(installed_tree, tmp_path):
    """A broken scrubber that imports a private module of the reference breaks it: the
    contract reads scrubbers/, not only suite/."""
    tree = tmp_path / "tree"
    shutil.copytree(installed_tree, tree)
    probe = tree / "scrubcheck" / "scrubbers" / "broken" / "probe_private.py"
    probe.write_text("from scrubcheck.scrubbers.reference.scrubber import BLOCK\n")
    run = lint_imports(CONFIG, tree)
    assert run.returncode != 0 and "scrubcheck.scrubbers.broken.probe_private" in run.stdout, \
        run.stdout[-2000:]


def test_the_contract_can_break(installed_tree, tmp_path):
    """Upside down, the same layers are broken: the contract sees the real import graph."""
    parser = configparser.ConfigParser()
    parser.read(CONFIG, encoding="utf-8")
    section = parser["importlinter:contract:layers"]
    section["layers"] = "\n".join(reversed(section["layers"].strip().splitlines()))
    upside_down = tmp_path / "upside-down.ini"
    with upside_down.open("w", encoding="utf-8") as out:
        parser.write(out)
    run = lint_imports(upside_down, installed_tree)
    assert run.returncode != 0 and "BROKEN" in run.stdout, run.stdout[-2000:]


def test_every_top_level_module_has_a_layer():
    """A new package outside the contract would be free to import anything."""
    listed = {name for layer in layer_names() for name in layer}
    top = {module_name(p) for p in SUITE.glob("*.py") if p.name != "__init__.py"}
    top |= {module_name(p.parent) for p in SUITE.glob("*/__init__.py")}
    unplaced = sorted(top - listed)
    assert unplaced == [], f"add {unplaced} to a layer in .importlinter"


def test_product_code_does_not_import_the_test_fixtures():
    """The broken scrubbers are test fixtures: the self-test's callers pass them in."""
    offenders = [f"{module_name(path)} imports {target}"
                 for path in SUITE.rglob("*.py")
                 for target, names in imports_of(path)
                 if target.startswith(FIXTURES)
                 or any(f"{target}.{name}".startswith(FIXTURES) for name in names)]
    assert offenders == []


def test_no_private_name_is_imported_from_another_package():
    """What two packages share is public, in the lower one (reports.htmlpage, childprocess);
    a private name imported across packages is a shared piece without a home."""
    offenders = []
    for path in SUITE.rglob("*.py"):
        own = module_name(path).split(".")[:2]
        for target, names in imports_of(path):
            if not target.startswith("scrubcheck.") or target.split(".")[:2] == own:
                continue
            offenders += [f"{module_name(path)}: {target}.{name}" for name in names
                          if name.startswith("_") and not name.startswith("__")]
    assert offenders == []


def _public_names(package: Path) -> set[str]:
    """The names a package's `__all__` lists."""
    for node in ast.parse((package / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def test_the_harness_reaches_the_reference_only_through_its_public_names():
    """suite/ builds the reference with `make_scrubber` (or its batch forms) from the
    package itself, never from its private modules, so the reference may be reorganised
    without the harness noticing."""
    public = _public_names(SCRUBBERS / "reference")
    assert "make_scrubber" in public
    offenders = [f"{module_name(path)} imports {target} {names}"
                 for path in SUITE.rglob("*.py")
                 for target, names in imports_of(path)
                 if target.startswith(REFERENCE + ".")
                 or (target == REFERENCE and not set(names) <= public)]
    assert offenders == []


def test_the_broken_scrubbers_override_nothing_private_of_the_reference():
    """A broken scrubber built on the reference states its bug by its public hook
    (`quirks = Quirks(...)`, reference/hooks.py) or its public methods; overriding or
    reading a private member would tie what it tests to the reference's insides."""
    offenders = []
    for path in (SCRUBBERS / "broken").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            if not any(isinstance(b, ast.Name) and b.id == "ReferenceScrubber"
                       for b in cls.bases):
                continue
            for node in ast.walk(cls):
                name = (node.name if isinstance(node, ast.FunctionDef)
                        else node.attr if isinstance(node, ast.Attribute)
                        else node.id if isinstance(node, ast.Name)
                        and isinstance(node.ctx, ast.Store) else "")
                if name.startswith("_") and not name.startswith("__"):
                    offenders.append(f"{path.name}: {cls.name} uses {name}")
    assert offenders == []
