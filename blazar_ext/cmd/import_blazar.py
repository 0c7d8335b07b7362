"""Import an upstream Blazar database (Blazar 18) into blazar_ext's.

Reads the source at --source-connection, prints what it would write per
table and every row it leaves out with the reason, then (unless
--dry-run) writes it all in one transaction. A second run refuses: ids
already present are never duplicated. The enabled plugins ([manager]
plugins) decide which reservation types come over, and translate the
detail rows upstream keeps in another shape (flavor:instance).
"""

import sqlalchemy as sa

from blazar_ext import conf
from blazar_ext import context as blazar_context
from blazar_ext.db.api import blazar_import
from blazar_ext.db import drivers
from blazar_ext import exceptions
from blazar_ext.plugins import loader

CONF = conf.CONF


def adopt(source: dict, plugins: loader.Plugins) -> dict:
    """{reservation id: {detail column: value}, or why it cannot be kept}
    of the reservations whose plugin keeps their detail otherwise than
    upstream (ResourcePlugin.adopt_upstream_detail), for
    blazar_import.plan."""
    adopted = {}
    for resource_type in blazar_import.IMPORTABLE_TYPES:
        plugin = plugins.by_type.get(resource_type)
        if plugin is None:  # disabled: plan() says so
            continue
        for reservation_id, row in blazar_import.detail_rows(
                source, resource_type):
            try:
                values = plugin.adopt_upstream_detail(row)
            except exceptions.Invalid as exc:
                adopted[reservation_id] = exc.kwargs.get('reason', str(exc))
                continue
            if values is not None:
                adopted[reservation_id] = values
    return adopted


def report(planned: blazar_import.Plan, out=print) -> None:
    """Counts per target table, skipped rows, failed property queries."""
    out('Rows to import, per blazar_ext table:')
    for table, count in planned.counts().items():
        out('  %-32s %d' % (table, count))
    out('Skipped rows: %d' % len(planned.skipped))
    for skip in planned.skipped:
        out('  %s %s: %s' % (skip.table, skip.row_id, skip.reason))
    if planned.query_failures:
        out('Property queries that do not parse: %d'
            % len(planned.query_failures))
        for failure in planned.query_failures:
            out('  lease %s reservation %s: %s' % (
                failure.lease_id, failure.reservation_id, failure.message))


def run(args) -> int:
    try:
        plugins = loader.Plugins(CONF.manager.plugins)
    except exceptions.ConfigurationError as exc:
        print('import-blazar: %s' % exc)
        return 2
    try:
        drivers.require(args.source_connection, '--source-connection')
    except drivers.MissingDriver as exc:
        print('import-blazar: %s' % exc)
        return 2
    engine = sa.create_engine(args.source_connection)
    try:
        blazar_import.check_revision(engine)
        source = blazar_import.read_source(engine)
    except exceptions.BlazarExtException as exc:
        print('import-blazar: %s' % exc)
        return 2
    except sa.exc.SQLAlchemyError as exc:
        print('import-blazar: cannot read the source database: %s'
              % exc.__class__.__name__ + ': ' + str(exc).splitlines()[0])
        return 2
    finally:
        engine.dispose()
    planned = blazar_import.plan(source, set(plugins.by_type),
                                 adopt(source, plugins))
    # The plan keeps the source rows it writes; the others (skipped ones,
    # rows the plan copied) need not stay through the write.
    del source
    report(planned)
    if args.dry_run:
        print('Dry run: nothing written.')
        return 0
    try:
        written = blazar_import.write(blazar_context.get_admin_context(),
                                      planned)
    except blazar_import.AlreadyImported as exc:
        print('import-blazar: %s' % exc)
        return 1
    print('Imported %d rows in one transaction.' % sum(written.values()))
    return 0


def configure_parser(parser) -> None:
    parser.add_argument(
        '--source-connection', required=True,
        help='SQLAlchemy URL of the upstream Blazar database, e.g. '
             'mysql+pymysql://blazar:secret@db/blazar or '
             'postgresql+psycopg2://blazar:secret@db/blazar (the drivers '
             "come with pip install 'blazar-ext[mysql]' or "
             "'blazar-ext[postgresql]').")
    parser.add_argument(
        '--dry-run', action='store_true',
        help='Print what would be imported and skipped; write nothing.')
    parser.set_defaults(func=run)
