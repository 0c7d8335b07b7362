#!/usr/bin/env python3
"""Find tests that cannot fail for the reason they name.

    python tools/check_tests.py [--root DIR] [--exceptions FILE]

Two checks over blazar_ext/tests/:

1. Python test methods (``def test_*`` in a class) that assert nothing.
   A test asserts when its body (nested functions included) has an
   ``assert`` statement, raises ``AssertionError`` or
   ``self.failureException``, calls ``fail``, ``expectThat``,
   ``ExpectedException`` or anything named ``assert*`` (``self.assert*``,
   ``mock.assert_called_*``), or calls a helper of the tests package that
   asserts by the same rule, resolved transitively by name:
   ``self.x()`` / ``cls.x()`` resolve to methods named ``x``, ``x()`` to
   functions named ``x``, ``module.x()`` (a module imported from
   ``blazar_ext.tests``) to that module's ``x``; a call on any other
   object (``self.api.get()``, ``requests.get()``) is not a check.
2. gabbi YAML entries whose status is 4xx and that check nothing but the
   status: each needs ``response_strings`` or a ``response_json_paths`` key
   other than the error's ``status`` or ``title`` (Placement's
   ``$.errors[0].code`` or ``.detail``, or a message).

Each finding is printed as ``path::Class.method`` or ``path::entry name``.
The exceptions file (default tools/check_tests_exceptions.txt) lists
accepted findings, one a line, each followed by `` # why``; a line without
a reason is an error, as is an exception that no longer matches. Exit 0
when every finding is accepted, 1 otherwise.
"""

import argparse
import ast
import collections
import os
import re
import sys
import typing

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TESTS = os.path.join('blazar_ext', 'tests')
EXCEPTIONS = os.path.join(HERE, 'check_tests_exceptions.txt')
ASSERT_CALLS = {'fail', 'expectThat', 'ExpectedException'}
FAILURE_NAMES = {'AssertionError', 'failureException'}
STATUS_ONLY_PATH = re.compile(r'\.(status|title)$')
CLIENT_ERROR = re.compile(r'\b4\d\d\b')


class _Function:
    """One def of the tests package: what it asserts and what it calls."""

    def __init__(self, module: str, node: ast.AST, kind: str) -> None:
        self.module = module
        self.kind = kind
        self.node = node
        self.asserts = False
        # (kind, name, module): kind is 'method', 'function' or 'module'.
        self.calls: list[tuple[str, str, str | None]] = []


def _call_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _raises_failure(node: ast.Raise) -> bool:
    exc = node.exc
    if isinstance(exc, ast.Call):
        exc = exc.func
    return _call_name(exc) in FAILURE_NAMES if exc is not None else False


def _scan(fn: _Function, test_modules: dict[str, str]) -> None:
    """Fill fn.asserts (direct) and fn.calls from its body."""
    for node in ast.walk(fn.node):
        if isinstance(node, ast.Assert):
            fn.asserts = True
        elif isinstance(node, ast.Raise) and _raises_failure(node):
            fn.asserts = True
        elif isinstance(node, ast.Call):
            name = _call_name(node.func)
            if name is None:
                continue
            if name.startswith('assert') or name in ASSERT_CALLS:
                fn.asserts = True
            elif isinstance(node.func, ast.Name):
                fn.calls.append(('function', name, None))
            elif (isinstance(node.func.value, ast.Name)
                    and node.func.value.id in test_modules):
                fn.calls.append(
                    ('module', name, test_modules[node.func.value.id]))
            elif (isinstance(node.func.value, ast.Name)
                    and node.func.value.id in ('self', 'cls')):
                fn.calls.append(('method', name, None))


def _imported_test_modules(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted module, for modules of the tests package."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith('blazar_ext.tests'):
            for alias in node.names:
                found[alias.asname or alias.name] = (
                    node.module + '.' + alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith('blazar_ext.tests') and \
                        alias.asname:
                    found[alias.asname] = alias.name
    return found


def _module_name(path: str) -> str:
    return os.path.splitext(path)[0].replace(os.sep, '.')


def python_findings(root: str) -> list[str]:
    """``path::Class.test`` of each test method that asserts nothing."""
    functions: list[_Function] = []
    tests: list[tuple[str, str, _Function]] = []
    for dirpath, _dirs, files in os.walk(os.path.join(root, TESTS)):
        for filename in sorted(files):
            if not filename.endswith('.py'):
                continue
            path = os.path.join(dirpath, filename)
            rel = os.path.relpath(path, root)
            with open(path, encoding='utf-8') as source:
                tree = ast.parse(source.read(), rel)
            module = _module_name(rel)
            imports = _imported_test_modules(tree)
            for node in ast.walk(tree):
                if not isinstance(node, ast.ClassDef):
                    continue
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef,
                                         ast.AsyncFunctionDef)):
                        fn = _Function(module, item, 'method')
                        _scan(fn, imports)
                        functions.append(fn)
                        if item.name.startswith('test'):
                            tests.append(
                                (rel, '%s.%s' % (node.name, item.name), fn))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        and not any(node is f.node for f in functions):
                    fn = _Function(module, node, 'function')
                    _scan(fn, imports)
                    functions.append(fn)
    by_key: dict[tuple[str, str], list[_Function]] = collections.defaultdict(
        list)
    for fn in functions:
        by_key[(fn.kind, fn.node.name)].append(fn)
        if fn.kind == 'function':
            by_key[('module:' + fn.module, fn.node.name)].append(fn)

    def targets(call: tuple[str, str, str | None]) -> list[_Function]:
        kind, name, module = call
        if kind == 'module':
            return (by_key.get(('module:' + module, name), [])
                    + by_key.get(('method', name), []))
        if kind == 'function':
            return by_key.get(('function', name), [])
        return by_key.get(('method', name), [])

    changed = True
    while changed:
        changed = False
        for fn in functions:
            if fn.asserts:
                continue
            if any(t.asserts for call in fn.calls for t in targets(call)):
                fn.asserts = True
                changed = True
    return sorted('%s::%s' % (rel, name)
                  for rel, name, fn in tests if not fn.asserts)


def _is_client_error(status: typing.Any) -> bool:
    return status is not None and bool(CLIENT_ERROR.search(str(status)))


def _checks_reason(entry: dict) -> bool:
    if entry.get('response_strings'):
        return True
    paths = entry.get('response_json_paths') or {}
    return any(not STATUS_ONLY_PATH.search(path) for path in paths)


def gabbi_findings(root: str) -> list[str]:
    """``path::name`` of each 4xx gabbi entry that checks only the status."""
    found = []
    for dirpath, _dirs, files in os.walk(os.path.join(root, TESTS)):
        if 'gabbits' not in os.path.basename(dirpath):
            continue
        for filename in sorted(files):
            if not filename.endswith('.yaml'):
                continue
            path = os.path.join(dirpath, filename)
            rel = os.path.relpath(path, root)
            with open(path, encoding='utf-8') as source:
                doc = yaml.safe_load(source) or {}
            for entry in doc.get('tests') or []:
                if _is_client_error(entry.get('status')) and \
                        not _checks_reason(entry):
                    found.append('%s::%s' % (rel, entry.get('name')))
    return sorted(found)


def read_exceptions(path: str) -> tuple[dict[str, str], list[str]]:
    """(finding -> why, errors) from the exceptions file."""
    accepted: dict[str, str] = {}
    errors: list[str] = []
    if not os.path.exists(path):
        return accepted, errors
    with open(path, encoding='utf-8') as source:
        for number, line in enumerate(source, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            finding, _sep, why = line.partition(' # ')
            if not why.strip():
                errors.append('%s:%d: exception without a reason: %s'
                              % (path, number, line))
            accepted[finding.strip()] = why.strip()
    return accepted, errors


def main(argv: list[str] | None = None,
         out: typing.TextIO | None = None) -> int:
    """Print the findings not accepted; 0 when there is none."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--root', default=ROOT)
    parser.add_argument('--exceptions', default=EXCEPTIONS)
    args = parser.parse_args(argv)
    out = sys.stdout if out is None else out
    findings = {
        'test method asserts nothing': python_findings(args.root),
        '4xx gabbi entry checks only the status': gabbi_findings(args.root),
    }
    accepted, errors = read_exceptions(args.exceptions)
    seen = set()
    for label, items in findings.items():
        for item in items:
            seen.add(item)
            if item not in accepted:
                errors.append('%s: %s' % (item, label))
    for item in sorted(set(accepted) - seen):
        errors.append('%s: listed as an exception but no longer found'
                      % item)
    for error in errors:
        print(error, file=out)
    total = len(seen)
    print('%d finding(s), %d accepted with a reason, %d error(s)'
          % (total, len(seen & set(accepted)), len(errors)), file=out)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
