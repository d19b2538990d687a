"""Check names are spelled once: in `checks.names.Check` for the shipped checks, in one
`CheckName("NAME")` in its own module for a check added later. No module compares a
failure's check with a string literal, lists checks as strings or builds a record from
one.

A renamed or new check then cannot leave a stale spelling behind that silently never
matches. The search reads the code's syntax (not its text), so that words such as
"leak" as a severity or "truncation" as a family of variants are not mistaken for
check names.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from scrubcheck.checks.names import Check

SUITE = Path(__file__).resolve().parent.parent / "suite"


def declared_names(tree: ast.AST) -> list[tuple[int, str]]:
    """The names a module declares with `CheckName("NAME")` (a check added later)."""
    return [(node.lineno, node.args[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "CheckName"
            and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)]


@cache
def _trees() -> list[tuple[Path, ast.AST]]:
    """Every module of the suite, parsed once for every test of this file."""
    return [(path, ast.parse(path.read_text(encoding="utf-8")))
            for path in sorted(SUITE.rglob("*.py"))]


DECLARED = [(path.relative_to(SUITE), line, name)
            for path, tree in _trees() for line, name in declared_names(tree)]
NAMES = {check.value for check in Check} | {name for _, _, name in DECLARED}
RECORDS = {"Evidence", "Violation", "Failure"}  # their first argument is a check's name


def _is_check(node: ast.expr) -> bool:
    """`x.check`, `check` or a name saying it holds checks (`_OUTPUT_CHECKS`)."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name == "check" or "CHECKS" in name


def _literals(node: ast.AST, names: set[str]) -> list[ast.Constant]:
    """The check `names` spelled in `node`, not counting keyword arguments (a registry
    entry's `prop="linear"` names a hunt property, which may share a check's name)."""
    if isinstance(node, ast.keyword):
        return []
    if isinstance(node, ast.Constant):
        return [node] if isinstance(node.value, str) and node.value in names else []
    return [c for child in ast.iter_child_nodes(node) for c in _literals(child, names)]


def check_name_literals(tree: ast.AST, names: set[str] = NAMES) -> list[tuple[int, str]]:
    found: list[ast.Constant] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_check(side) for side in sides):
                found += [c for side in sides for c in _literals(side, names)]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is not None and any(_is_check(t) for t in targets):
                found += _literals(node.value, names)
        elif isinstance(node, ast.Call) and node.args:
            callee = node.func
            name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
            if name in RECORDS:
                found += _literals(node.args[0], names)
    return sorted({(c.lineno, c.value) for c in found})


def test_no_check_name_is_a_string_literal_outside_the_enum():
    offenders = []
    for path, tree in _trees():
        if path.name == "check_names.py" and path.parent.name == "suite":
            continue
        for line, name in check_name_literals(tree):
            offenders.append(f"{path.relative_to(SUITE)}:{line}: {name!r}")
    assert offenders == [], "use checks.names.Check instead of:\n" + "\n".join(offenders)


def test_the_search_finds_each_way_of_spelling_a_check_by_hand():
    code = (
        'if failure.check == "holdback": pass\n'
        'if v.check in ("timeout", "linear"): pass\n'
        '_OUTPUT_CHECKS = frozenset({"expected", "leak"})\n'
        'Violation("reuse", "R-REUSE-1")\n'
        'severity = "leak"\n'  # not a check: left alone
        'capped["truncation"] = 1\n'
    )
    assert check_name_literals(ast.parse(code)) == [
        (1, "holdback"), (2, "linear"), (3, "expected"), (3, "leak"), (4, "reuse")]


def test_a_check_s_own_name_is_declared_once_and_is_not_a_shipped_one():
    names = [name for _, _, name in DECLARED]
    twice = [d for d in DECLARED if names.count(d[2]) > 1 or d[2] in set(Check)]
    assert twice == [], f"declared again: {twice}"


def test_the_search_finds_a_declaration_and_then_its_spelling_by_hand():
    code = 'LAG = CheckName("lag")\nif failure.check == "lag": pass\n'
    assert declared_names(ast.parse(code)) == [(1, "lag")]
    assert check_name_literals(ast.parse(code), NAMES | {"lag"}) == [(2, "lag")]
