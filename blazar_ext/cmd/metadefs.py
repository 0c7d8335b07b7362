"""Metadata definitions catalog: load, export and unload JSON definitions."""

import glob
import json
import os
import sys

from oslo_config import cfg
from oslo_log import log as logging

from blazar_ext.api.metadefs import schemas
from blazar_ext.api import validation
from blazar_ext import context as blazar_context
from blazar_ext.db.api.metadefs import namespace as ns_api
from blazar_ext import exceptions

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# Where the shipped files are: a source checkout, then a pip/system install.
_SHIPPED_CANDIDATES = [
    os.path.join(_PACKAGE_DIR, 'etc', 'blazar-ext', 'metadefs'),
    os.path.join(sys.prefix, 'etc', 'blazar-ext', 'metadefs'),
    '/etc/blazar-ext/metadefs',
]
_READ_ONLY = ('created_at', 'updated_at', 'schema', 'self')


def definitions_dir() -> str | None:
    """[metadefs] definitions_dir, else the first shipped directory found."""
    if CONF.metadefs.definitions_dir:
        return CONF.metadefs.definitions_dir
    return next((d for d in _SHIPPED_CANDIDATES if os.path.isdir(d)), None)


def _read(path: str) -> dict:
    with open(path, encoding='utf-8') as f:
        try:
            data = json.load(f)
        except ValueError as exc:
            raise exceptions.Invalid(reason='%s is not JSON: %s'
                                     % (path, exc))
    try:
        validation.validate(schemas.NAMESPACE, data)
    except exceptions.Invalid as exc:
        raise exceptions.Invalid(reason='%s: %s' % (path, exc.message))
    return data


def _clean(items: list) -> list:
    return [{k: v for k, v in i.items() if k not in _READ_ONLY}
            for i in items]


def load(context, path: str, overwrite: bool = False) -> list:
    """Load every *.json file of ``path``; returns the namespaces loaded.

    An existing namespace is kept unless ``overwrite``, which replaces it
    (even a protected one) with the file's definition.
    """
    loaded = []
    for filename in sorted(glob.glob(os.path.join(path, '*.json'))):
        data = _read(filename)
        name = data['namespace']
        try:
            ns_api.namespace_get(context, name)
        except exceptions.NotFound:
            pass
        else:
            if not overwrite:
                LOG.info('Namespace %s exists; skipped %s', name, filename)
                continue
            ns_api.namespace_delete(context, name, force=True)
        values = {k: data.get(k) for k in ('namespace', 'display_name',
                                           'description')}
        values.update(visibility=data.get('visibility', 'public'),
                      protected=data.get('protected', False),
                      owner=data.get('owner') or context.project_id or
                      'admin')
        ns_api.namespace_create(
            context, values, properties=data.get('properties'),
            objects=_clean(data.get('objects', [])),
            tags=[{'name': t['name']} for t in data.get('tags', [])],
            associations=_clean(data.get('resource_type_associations', [])))
        LOG.info('Loaded namespace %s from %s', name, filename)
        loaded.append(name)
    return loaded


def _exportable(namespace: dict) -> dict:
    out = {k: namespace[k] for k in ('namespace', 'display_name',
                                     'description', 'visibility',
                                     'protected', 'owner')
           if namespace.get(k) is not None}
    if namespace['resource_type_associations']:
        out['resource_type_associations'] = [
            {k: v for k, v in a.items() if k in ('name', 'prefix',
                                                 'properties_target')}
            for a in namespace['resource_type_associations']]
    if namespace['properties']:
        out['properties'] = namespace['properties']
    if namespace['objects']:
        out['objects'] = _clean(namespace['objects'])
    if namespace['tags']:
        out['tags'] = [{'name': t['name']} for t in namespace['tags']]
    return out


def export(context, path: str) -> list:
    """Write each namespace to <path>/<namespace>.json (``::`` -> ``-``)."""
    os.makedirs(path, exist_ok=True)
    written = []
    for row in ns_api.namespace_list(context):
        full = ns_api.namespace_get_full(context, row['namespace'])
        filename = os.path.join(
            path, row['namespace'].replace('::', '-').replace('/', '_') +
            '.json')
        with open(filename, 'w', encoding='utf-8') as f:
            json.dump(_exportable(full), f, indent=4, sort_keys=True)
            f.write('\n')
        written.append(filename)
    return written


def unload(context, namespaces: list | None = None) -> list:
    """Delete the named namespaces (None: all of them), protected ones
    too."""
    names = namespaces if namespaces is not None else [
        r['namespace'] for r in ns_api.namespace_list(context)]
    for name in names:
        ns_api.namespace_delete(context, name, force=True)
    return names


def load_shipped_on_first_start(context) -> list:
    """For the embedded default: load the definitions if the catalog is
    empty and [metadefs] load_on_first_start allows it."""
    if not CONF.metadefs.load_on_first_start:
        return []
    if ns_api.namespace_list(context, limit=1):
        return []
    path = definitions_dir()
    if path is None:
        LOG.warning('No metadefs definitions directory found; the catalog '
                    'stays empty')
        return []
    return load(context, path)


def _load(args) -> int:
    path = args.path or definitions_dir()
    if path is None or not os.path.isdir(path):
        print('No definitions directory: give one or set [metadefs] '
              'definitions_dir', file=sys.stderr)
        return 1
    try:
        loaded = load(blazar_context.get_admin_context(), path,
                      overwrite=args.overwrite)
    except exceptions.BlazarExtException as exc:
        print(exc.message, file=sys.stderr)
        return 1
    print('Loaded %d namespace(s) from %s: %s'
          % (len(loaded), path, ', '.join(loaded) or '-'))
    return 0


def _export(args) -> int:
    written = export(blazar_context.get_admin_context(), args.path)
    print('Exported %d namespace(s) to %s' % (len(written), args.path))
    return 0


def _unload(args) -> int:
    if bool(args.namespace) == bool(args.all):
        # Deleting the whole catalog is never a default: say which.
        print('metadefs unload: give --namespace NAME (repeatable) or '
              '--all (not both); nothing was unloaded.', file=sys.stderr)
        return 2
    try:
        names = unload(blazar_context.get_admin_context(),
                       None if args.all else args.namespace)
    except exceptions.NotFound as exc:
        print(exc.message, file=sys.stderr)
        return 1
    print('Unloaded %d namespace(s)' % len(names))
    return 0


def add_parsers(subparsers) -> None:
    parser = subparsers.add_parser(
        'load', help='Load JSON definition files into the catalog.')
    parser.add_argument('path', nargs='?',
                        help='Directory of *.json files (default: '
                             '[metadefs] definitions_dir or the shipped '
                             'files).')
    parser.add_argument('--overwrite', action='store_true',
                        help='Replace namespaces that already exist.')
    parser.set_defaults(func=_load)

    parser = subparsers.add_parser(
        'export', help='Write every namespace to a JSON file.')
    parser.add_argument('path', help='Directory to write into.')
    parser.set_defaults(func=_export)

    parser = subparsers.add_parser(
        'unload', help='Delete namespaces, protected ones included.')
    parser.add_argument('--namespace', action='append',
                        help='A namespace to delete (repeatable).')
    parser.add_argument('--all', action='store_true',
                        help='Delete every namespace of the catalog.')
    parser.set_defaults(func=_unload)
