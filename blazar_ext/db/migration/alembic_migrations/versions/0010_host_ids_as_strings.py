"""Host ids are strings, as upstream Blazar's.

New hosts get a UUID; a host numbered before this revision keeps its
number, now as a string ("7"), in computehosts and in every column that
refers to it (capability values, host and instance allocations), so ids
stored by clients stay valid. Host providers point from the host row
(resource_provider_id) and are untouched.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0010'
down_revision = '0009'

HOST_ID = sa.String(36)

# (table, column, ondelete, name of the foreign key this revision creates)
_REFERENCES = (
    ('computehost_extra_capabilities', 'computehost_id', 'CASCADE',
     'fk_computehost_extra_capabilities_computehost_id'),
    ('computehost_allocations', 'compute_host_id', None,
     'fk_computehost_allocations_compute_host_id'),
    ('instance_allocations', 'compute_host_id', None,
     'fk_instance_allocations_compute_host_id'),
)


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _upgrade_sqlite()
        return
    # MySQL and PostgreSQL refuse to change the type of a column a foreign
    # key joins, so the keys go first and come back after.
    inspector = sa.inspect(op.get_bind())
    for table, column, _, _ in _REFERENCES:
        for fk in inspector.get_foreign_keys(table):
            if fk['referred_table'] == 'computehosts':
                op.drop_constraint(fk['name'], table, type_='foreignkey')
    op.alter_column('computehosts', 'id', existing_type=sa.Integer,
                    type_=HOST_ID, existing_nullable=False,
                    autoincrement=False, server_default=None,
                    postgresql_using='id::varchar')
    if op.get_bind().dialect.name == 'postgresql':
        # The SERIAL's sequence has nothing left to number.
        op.execute('DROP SEQUENCE IF EXISTS computehosts_id_seq')
    for table, column, ondelete, name in _REFERENCES:
        op.alter_column(table, column, existing_type=sa.Integer,
                        type_=HOST_ID, existing_nullable=False,
                        postgresql_using='%s::varchar' % column)
        op.create_foreign_key(name, table, 'computehosts', [column], ['id'],
                              ondelete=ondelete)


def _upgrade_sqlite() -> None:
    # Batch mode copies each table into a new one, casting the ids;
    # SQLite does not check that key types agree, so order is free.
    with op.batch_alter_table('computehosts') as batch:
        batch.alter_column('id', existing_type=sa.Integer, type_=HOST_ID,
                           existing_nullable=False, autoincrement=False)
    for table, column, _, _ in _REFERENCES:
        with op.batch_alter_table(table) as batch:
            batch.alter_column(column, existing_type=sa.Integer,
                               type_=HOST_ID, existing_nullable=False)
