"""Maintenance windows on floating IPs.

A window names its resource by one column per type: compute_host_id (a
host) or floatingip_id (a floating IP); the other is NULL. No ON DELETE
CASCADE on floatingip_id: SQLite, foreign keys on, then cannot drop the
tables one by one (a cascade from floatingips to a table whose other
parent is gone fails); unregistering a floating IP deletes its past
windows itself (db/api/floatingip.py).

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa

revision = '0026'
down_revision = '0025'


def upgrade() -> None:
    with op.batch_alter_table('maintenance_windows') as batch:
        batch.alter_column('compute_host_id', existing_type=sa.String(36),
                           nullable=True)
        batch.add_column(sa.Column('floatingip_id', sa.String(36),
                                   nullable=True))
        batch.create_index('ix_maintenance_windows_floatingip_id',
                           ['floatingip_id'])
        batch.create_foreign_key(
            'fk_maintenance_windows_floatingip_id', 'floatingips',
            ['floatingip_id'], ['id'])
