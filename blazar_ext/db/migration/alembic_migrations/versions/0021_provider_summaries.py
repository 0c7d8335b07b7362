"""Each resource provider's summary kept ready by database triggers.

Allocation candidates answer with every candidate's inventories (class,
capacity, usage) and traits. Built per request, as correlated group
concatenations over inventories, allocations and traits, they were most
of the candidates query's cost (on 10,000 hosts, about 150 of its 233
million instructions on SQLite). resource_provider_summaries keeps the
same two texts per provider, and triggers on resource_providers,
inventories, allocations and resource_provider_traits recompute a
provider's text whenever one of its rows changes, so that every writer
(the API, the Blazar host code, importers, healing, raw bulk SQL) keeps
them right without knowing about them.

A table of its own, not columns of resource_providers: MySQL refuses a
trigger that writes a table its statement reads (error 1442), and
statements that change allocations or inventories often read
resource_providers. No foreign key cascades into the three watched
tables (MySQL fires no trigger for a cascaded change); the summary row
itself cascades with its provider.

The texts are what the candidates query built before this revision, on
each database: 'class id:capacity:used' joined by commas, capacity
truncated toward zero like Python's int(), and the trait ids joined by
commas; NULL for none; in no set order. The SQL is written out here, not
imported, as a migration is a snapshot.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa

revision = '0021'
down_revision = '0020'

TABLE = 'resource_provider_summaries'
# (table, the text its rows make up)
WATCHED = [('inventories', 'inventories'), ('allocations', 'inventories'),
           ('resource_provider_traits', 'traits')]
EVENTS = ('INSERT', 'UPDATE', 'DELETE')

# The texts of the provider whose id is %(p)s, per database.
SQLITE_TEXTS = {
    'inventories': (
        "(SELECT group_concat(CAST(i.resource_class_id AS VARCHAR) || ':' "
        "|| CAST(CAST((i.total - i.reserved) * i.allocation_ratio "
        "AS INTEGER) AS VARCHAR) || ':' || CAST(coalesce("
        "(SELECT sum(a.used) FROM allocations AS a "
        "WHERE a.resource_provider_id = i.resource_provider_id "
        "AND a.resource_class_id = i.resource_class_id), 0) AS VARCHAR)) "
        "FROM inventories AS i WHERE i.resource_provider_id = %(p)s)"),
    'traits': (
        "(SELECT group_concat(t.trait_id) FROM resource_provider_traits "
        "AS t WHERE t.resource_provider_id = %(p)s)"),
}
POSTGRESQL_TEXTS = {
    'inventories': (
        "(SELECT string_agg(CAST(CAST(i.resource_class_id AS VARCHAR) "
        "|| ':' || CAST(CAST(trunc((i.total - i.reserved) "
        "* i.allocation_ratio) AS BIGINT) AS VARCHAR) || ':' || "
        "CAST(coalesce((SELECT sum(a.used) FROM allocations AS a "
        "WHERE a.resource_provider_id = i.resource_provider_id "
        "AND a.resource_class_id = i.resource_class_id), 0) AS VARCHAR) "
        "AS TEXT), ',') "
        "FROM inventories AS i WHERE i.resource_provider_id = %(p)s)"),
    'traits': (
        "(SELECT string_agg(CAST(t.trait_id AS TEXT), ',') "
        "FROM resource_provider_traits AS t "
        "WHERE t.resource_provider_id = %(p)s)"),
}
MYSQL_TEXTS = {
    'inventories': (
        "(SELECT GROUP_CONCAT(concat(CAST(i.resource_class_id AS CHAR), "
        "':', CAST(CAST(TRUNCATE((i.total - i.reserved) "
        "* i.allocation_ratio, 0) AS SIGNED) AS CHAR), ':', "
        "CAST(coalesce((SELECT sum(a.used) FROM allocations AS a "
        "WHERE a.resource_provider_id = i.resource_provider_id "
        "AND a.resource_class_id = i.resource_class_id), 0) AS CHAR))) "
        "FROM inventories AS i WHERE i.resource_provider_id = %(p)s)"),
    'traits': (
        "(SELECT GROUP_CONCAT(t.trait_id) FROM resource_provider_traits "
        "AS t WHERE t.resource_provider_id = %(p)s)"),
}
TEXTS = {'sqlite': SQLITE_TEXTS, 'postgresql': POSTGRESQL_TEXTS,
         'mysql': MYSQL_TEXTS}
# GROUP_CONCAT stops at the session's group_concat_max_len (MySQL's
# default is 1,024 bytes): a writer that did not raise it (a bulk load
# through the mysql client, say) would store a cut text.
MYSQL_LONG_CONCAT = ('SET SESSION group_concat_max_len = '
                     'GREATEST(@@SESSION.group_concat_max_len, 4194304)')
S_ID = TABLE + '.resource_provider_id'


def _refresh(dialect: str, text: str, ids: str) -> str:
    """UPDATE the ``text`` of the summaries of providers ``ids``."""
    return 'UPDATE %s SET %s = %s WHERE resource_provider_id IN (%s)' % (
        TABLE, text, TEXTS[dialect][text] % {'p': S_ID}, ids)


def _ids(event: str) -> str:
    """The provider ids a row change touches, in trigger terms."""
    return {'INSERT': 'NEW.resource_provider_id',
            'DELETE': 'OLD.resource_provider_id',
            'UPDATE': 'OLD.resource_provider_id, '
                      'NEW.resource_provider_id'}[event]


def _name(table: str, event: str) -> str:
    return 'rps_%s_%s' % (table, event.lower())


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        TABLE,
        sa.Column('resource_provider_id', sa.Integer,
                  sa.ForeignKey('resource_providers.id', ondelete='CASCADE'),
                  primary_key=True, autoincrement=False),
        sa.Column('inventories', sa.Text),
        sa.Column('traits', sa.Text),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    if dialect == 'mysql':
        op.execute(MYSQL_LONG_CONCAT)
    op.execute('INSERT INTO %s (resource_provider_id, inventories, traits) '
               'SELECT rp.id, %s, %s FROM resource_providers AS rp' % (
                   TABLE, TEXTS[dialect]['inventories'] % {'p': 'rp.id'},
                   TEXTS[dialect]['traits'] % {'p': 'rp.id'}))
    {'sqlite': _sqlite_triggers, 'mysql': _mysql_triggers,
     'postgresql': _postgresql_triggers}[dialect]()


def _sqlite_triggers() -> None:
    # SQLite cascades only on connections that enable foreign keys (the
    # service's do; the sqlite3 shell's do not): a trigger removes the
    # row, and OR REPLACE overwrites one left behind for an id SQLite
    # hands out again.
    op.execute('CREATE TRIGGER rps_resource_providers_insert AFTER INSERT '
               'ON resource_providers FOR EACH ROW BEGIN '
               'INSERT OR REPLACE INTO %s (resource_provider_id) '
               'VALUES (NEW.id); END' % TABLE)
    op.execute('CREATE TRIGGER rps_resource_providers_delete AFTER DELETE '
               'ON resource_providers FOR EACH ROW BEGIN '
               'DELETE FROM %s WHERE resource_provider_id = OLD.id; END'
               % TABLE)
    _row_triggers('sqlite')


def _row_triggers(dialect: str, *first: str) -> None:
    """SQLite and MySQL: a trigger per watched table and event running
    the statements ``first``, then the refresh of the summaries."""
    for table, text in WATCHED:
        for event in EVENTS:
            body = first + (_refresh(dialect, text, _ids(event)),)
            op.execute('CREATE TRIGGER %s AFTER %s ON %s FOR EACH ROW '
                       'BEGIN %s; END' % (_name(table, event), event, table,
                                          '; '.join(body)))


def _mysql_triggers() -> None:
    op.execute('CREATE TRIGGER rps_resource_providers_insert AFTER INSERT '
               'ON resource_providers FOR EACH ROW '
               'INSERT INTO %s (resource_provider_id) VALUES (NEW.id)'
               % TABLE)
    _row_triggers('mysql', MYSQL_LONG_CONCAT)


def _postgresql_triggers() -> None:
    op.execute('CREATE FUNCTION rps_resource_providers_insert() '
               'RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN '
               'INSERT INTO %s (resource_provider_id) VALUES (NEW.id); '
               'RETURN NULL; END $$' % TABLE)
    op.execute('CREATE TRIGGER rps_resource_providers_insert AFTER INSERT '
               'ON resource_providers FOR EACH ROW EXECUTE FUNCTION '
               'rps_resource_providers_insert()')
    for text in ('inventories', 'traits'):
        # The summary rows locked first: each statement after the lock
        # sees what the transactions that held it committed (READ
        # COMMITTED takes a snapshot per statement), so two writers of
        # one provider cannot leave a text without the other's rows.
        op.execute(
            'CREATE FUNCTION rps_refresh_%(text)s() RETURNS trigger '
            'LANGUAGE plpgsql AS $$ DECLARE ids integer[]; BEGIN '
            "IF TG_OP = 'INSERT' THEN "
            'ids := ARRAY[NEW.resource_provider_id]; '
            "ELSIF TG_OP = 'DELETE' THEN "
            'ids := ARRAY[OLD.resource_provider_id]; '
            'ELSE ids := ARRAY[OLD.resource_provider_id, '
            'NEW.resource_provider_id]; END IF; '
            'PERFORM 1 FROM %(table)s WHERE resource_provider_id = ANY(ids) '
            'ORDER BY resource_provider_id FOR UPDATE; '
            'UPDATE %(table)s SET %(text)s = %(select)s '
            'WHERE resource_provider_id = ANY(ids); '
            'RETURN NULL; END $$' % {
                'text': text, 'table': TABLE,
                'select': POSTGRESQL_TEXTS[text] % {'p': S_ID}})
    for table, text in WATCHED:
        for event in EVENTS:
            op.execute('CREATE TRIGGER %s AFTER %s ON %s FOR EACH ROW '
                       'EXECUTE FUNCTION rps_refresh_%s()' % (
                           _name(table, event), event, table, text))


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    triggers = [('resource_providers', 'INSERT')] + [
        (table, event) for table, _ in WATCHED for event in EVENTS]
    if dialect == 'sqlite':
        triggers.append(('resource_providers', 'DELETE'))
    for table, event in triggers:
        op.execute('DROP TRIGGER IF EXISTS %s%s' % (
            _name(table, event),
            ' ON %s' % table if dialect == 'postgresql' else ''))
    if dialect == 'postgresql':
        for function in ('rps_resource_providers_insert',
                         'rps_refresh_inventories', 'rps_refresh_traits'):
            op.execute('DROP FUNCTION IF EXISTS %s()' % function)
    op.drop_table(TABLE)
