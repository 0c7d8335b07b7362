"""The layers of blazar_ext, checked on its import graph.

The graph is read from the source (every ``import`` statement, at module
level or inside a function), so it also sees imports a lazy ``import``
hides from a running interpreter. Rules, from doc/source/admin/architecture:

- no import cycle between modules, nor between the top-level packages
  (``blazar_ext.cmd`` <-> ``blazar_ext.wsgi`` would be one), nor between
  sub-packages (``db.api`` <-> ``db.models`` would be one);
- the layers of ``LAYERS`` import only the layers below them;
- ``drivers/`` and ``health/`` (external services) never import ``db/``;
- ``conf/`` imports nothing of blazar_ext outside itself;
- ``query/`` is pure: it imports neither ``db/`` nor any layer doing I/O;
- ``db/`` never imports the layers above it;
- only the API checks policy;
- only ``db/`` opens database sessions (all SQL lives there);
- no module imports a test module (``test_*``): what tests share lives in
  fixtures and base modules, so each test runs where it is defined.
"""

import ast
import os

import fixtures
import testtools

import blazar_ext

PACKAGE = 'blazar_ext'
# The layers that do I/O or serve requests; neither query/ nor db/ may
# import them.
UPPER = ('api', 'manager', 'plugins', 'enforcement', 'rpc', 'cmd', 'wsgi',
         'health', 'drivers')
IO = UPPER + ('db',)
SESSION_MODULE = 'blazar_ext.db.session'
# From the top (doc/source/contributor/architecture.rst): a layer imports
# only the layers after it here.
LAYERS = ('cmd', 'wsgi', 'api', 'manager', 'rpc', 'enforcement', 'health',
          'plugins', 'drivers', 'db', 'query')


def _modules(root: str, tests: bool = False) -> dict:
    """{dotted name: path} of every module under ``root``, tests aside
    unless ``tests``."""
    found = {}
    base = os.path.dirname(root)
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if tests or d != 'tests']
        for name in files:
            if not name.endswith('.py'):
                continue
            path = os.path.join(directory, name)
            dotted = os.path.relpath(path, base)[:-3].replace(os.sep, '.')
            if dotted.endswith('.__init__'):
                dotted = dotted[:-len('.__init__')]
            found[dotted] = path
    return found


def _imported(module: str, path: str, modules: dict) -> set:
    """The modules of the package that ``module`` imports."""
    with open(path, encoding='utf-8') as source:
        tree = ast.parse(source.read(), path)
    package = module if path.endswith('__init__.py') else (
        module.rpartition('.')[0])
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ''
            if node.level:
                parts = package.split('.')
                parts = parts[:len(parts) - node.level + 1]
                base = '.'.join(parts + ([base] if base else []))
            for alias in node.names:
                # "from pkg import name": a submodule, or a name in pkg.
                candidate = '%s.%s' % (base, alias.name)
                names.add(candidate if candidate in modules else base)
    return {name for name in names if name in modules and name != module}


def import_graph(root: str, tests: bool = False) -> dict:
    """{module: set of package modules it imports} for the package at
    ``root`` (with its tests if ``tests``)."""
    modules = _modules(root, tests)
    return {name: _imported(name, path, modules)
            for name, path in modules.items()}


def cycles(graph: dict) -> list:
    """The strongly connected components of more than one node, as sets
    (Tarjan's algorithm, iterative: the graph may be deep)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append(
                        (target, iter(sorted(graph.get(target, ())))))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def package_graph(graph: dict, depth: int = 2) -> dict:
    """The graph between top-level packages (``blazar_ext.db`` and so on),
    or with ``depth`` 3 between sub-packages (``blazar_ext.db.api``)."""
    def top(module):
        return '.'.join(module.split('.')[:depth])
    out: dict = {}
    for module, targets in graph.items():
        for target in targets:
            if top(target) != top(module):
                out.setdefault(top(module), set()).add(top(target))
    return out


def _in(module: str, layers) -> bool:
    return any(module == '%s.%s' % (PACKAGE, layer) or
               module.startswith('%s.%s.' % (PACKAGE, layer))
               for layer in layers)


def violations(graph: dict, source_layers, forbidden) -> list:
    """The edges from a module of ``source_layers`` into ``forbidden``."""
    return sorted('%s -> %s' % (module, target)
                  for module, targets in graph.items()
                  if _in(module, source_layers)
                  for target in targets if _in(target, forbidden))


def upward_imports(graph: dict, layers) -> list:
    """The edges from a layer into itself-or-above in ``layers`` (ordered
    from the top), between different top-level packages."""
    rank = {'%s.%s' % (PACKAGE, layer): i for i, layer in enumerate(layers)}
    return sorted('%s -> %s' % (source, target)
                  for source, targets in package_graph(graph).items()
                  if source in rank
                  for target in targets
                  if target in rank and rank[target] <= rank[source])


def imports_of_test_modules(graph: dict) -> list:
    """The edges into a test module (one named ``test_*``)."""
    return sorted('%s -> %s' % (module, target)
                  for module, targets in graph.items()
                  for target in targets
                  if target.rpartition('.')[2].startswith('test_'))


class TestCheckers(testtools.TestCase):
    """The checkers find what they look for (so a pass means something)."""

    def test_cycles_found(self):
        graph = {'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}, 'e': set()}
        self.assertEqual([{'a', 'b', 'c'}], cycles(graph))

    def test_no_cycle_in_a_tree(self):
        self.assertEqual([], cycles({'a': {'b', 'c'}, 'b': {'c'}}))

    def test_package_cycle_from_module_edges(self):
        graph = {'blazar_ext.cmd.api': {'blazar_ext.wsgi.server'},
                 'blazar_ext.wsgi.api': {'blazar_ext.cmd.common'},
                 'blazar_ext.wsgi.server': set(),
                 'blazar_ext.cmd.common': set()}
        self.assertEqual([], cycles(graph))
        self.assertEqual([{'blazar_ext.cmd', 'blazar_ext.wsgi'}],
                         cycles(package_graph(graph)))

    def test_violations(self):
        graph = {'blazar_ext.query.x': {'blazar_ext.db.models.host',
                                        'blazar_ext.query.y'}}
        self.assertEqual(['blazar_ext.query.x -> blazar_ext.db.models.host'],
                         violations(graph, ['query'], IO))

    def test_subpackage_cycle(self):
        graph = {'blazar_ext.db.api.a': {'blazar_ext.db.models.b'},
                 'blazar_ext.db.models.b': {'blazar_ext.db.api.c'},
                 'blazar_ext.db.api.c': set()}
        self.assertEqual([], cycles(package_graph(graph)))
        self.assertEqual([{'blazar_ext.db.api', 'blazar_ext.db.models'}],
                         cycles(package_graph(graph, depth=3)))

    def test_upward_imports(self):
        graph = {'blazar_ext.drivers.x': {'blazar_ext.plugins.y',
                                          'blazar_ext.exceptions'},
                 'blazar_ext.plugins.y': {'blazar_ext.drivers.z'}}
        self.assertEqual(['blazar_ext.drivers -> blazar_ext.plugins'],
                         upward_imports(graph, ('plugins', 'drivers')))

    def test_test_module_imports(self):
        graph = {'t.test_a': {'t.test_b', 't.fixtures'},
                 't.test_b': {'t.fixtures'}, 't.fixtures': set()}
        self.assertEqual(['t.test_a -> t.test_b'],
                         imports_of_test_modules(graph))

    def test_relative_and_from_imports_resolved(self):
        root = self.useFixture(fixtures.TempDir()).path
        os.mkdir(os.path.join(root, 'pkg'))
        for name, text in (
                ('__init__', ''), ('a', 'from . import b\n'),
                ('b', 'def f():\n    from pkg.c import name\n'),
                ('c', 'import pkg.a\nname = 1\n')):
            with open(os.path.join(root, 'pkg', name + '.py'), 'w') as f:
                f.write(text)
        graph = import_graph(os.path.join(root, 'pkg'))
        self.assertEqual({'pkg.b'}, graph['pkg.a'])
        self.assertEqual({'pkg.c'}, graph['pkg.b'])
        self.assertEqual([{'pkg.a', 'pkg.b', 'pkg.c'}], cycles(graph))


class TestLayers(testtools.TestCase):
    """blazar_ext itself keeps the rules."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.graph = import_graph(os.path.dirname(blazar_ext.__file__))

    def test_graph_is_read(self):
        self.assertIn('blazar_ext.db.api.lease',
                      self.graph['blazar_ext.manager.leases'])
        self.assertIn('blazar_ext.drivers.client',
                      self.graph['blazar_ext.health.nova'])

    def test_no_module_cycles(self):
        self.assertEqual([], [sorted(c) for c in cycles(self.graph)])

    def test_no_package_cycles(self):
        self.assertEqual(
            [], [sorted(c) for c in cycles(package_graph(self.graph))])

    def test_no_subpackage_cycles(self):
        self.assertEqual(
            [], [sorted(c) for c in cycles(package_graph(self.graph, 3))])

    def test_layers_import_only_downwards(self):
        self.assertEqual([], upward_imports(self.graph, LAYERS))

    def test_external_services_do_not_touch_the_database(self):
        # Drivers and health monitors report; the manager writes.
        self.assertEqual([], violations(self.graph, ['drivers', 'health'],
                                        ['db']))

    def test_conf_is_a_leaf(self):
        self.assertEqual([], sorted(
            '%s -> %s' % (module, target)
            for module, targets in self.graph.items() if _in(module, ['conf'])
            for target in targets if not _in(target, ['conf'])))

    def test_query_is_pure(self):
        self.assertEqual([], violations(self.graph, ['query'], IO))

    def test_db_does_not_import_upper_layers(self):
        self.assertEqual([], violations(self.graph, ['db'], UPPER))

    def test_only_the_api_checks_policy(self):
        # The API decides (private visibility included) and passes the
        # answer down; the layers below take it as a plain argument.
        self.assertEqual([], violations(
            self.graph, ['manager', 'rpc', 'enforcement', 'health', 'plugins',
                         'drivers', 'db', 'query'],
            ['policy']))

    def test_only_db_opens_sessions(self):
        outside = sorted(module for module, targets in self.graph.items()
                         if SESSION_MODULE in targets and
                         not _in(module, ['db']))
        self.assertEqual([], outside)

    def test_no_test_module_imports_another(self):
        graph = import_graph(os.path.dirname(blazar_ext.__file__),
                             tests=True)
        self.assertIn('blazar_ext.tests.functional.test_fuzz', graph)
        self.assertEqual([], imports_of_test_modules(graph))
