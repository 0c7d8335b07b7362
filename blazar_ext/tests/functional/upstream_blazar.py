"""Real upstream Blazar 18 databases, built by upstream's own code.

``tools/blazar/setup-venv.sh`` installs blazar==18.0.0 into a private venv
($BLAZAR_EXT_UPSTREAM_VENV, else .blazar-venv/ in the repository). On
MySQL/MariaDB its ``blazar-db-manage upgrade head`` builds the schema. On
PostgreSQL upstream's migrations cannot run to head: revision 02e2f2186d98
selects ``"physical:host"`` (an identifier there) and updates with MySQL's
``UPDATE ... JOIN``; there the schema comes from upstream's own models
(``create_all``) and ``blazar-db-manage stamp head`` records the revision,
which is what an operator of upstream Blazar on PostgreSQL has.
"""

import os
import subprocess
import tempfile
import uuid

from oslo_db.sqlalchemy import provision

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..',
                                    '..'))

_CREATE_FROM_MODELS = '''
import sys
import sqlalchemy as sa
from blazar.db.sqlalchemy import models
engine = sa.create_engine(sys.argv[1])
models.mb.BlazarBase.metadata.create_all(engine)
engine.dispose()
'''


def venv() -> str:
    return os.environ.get('BLAZAR_EXT_UPSTREAM_VENV') or os.path.join(
        REPO, '.blazar-venv')


def missing() -> str | None:
    """Why upstream Blazar cannot be used here, or None."""
    if not os.path.exists(os.path.join(venv(), 'bin', 'blazar-db-manage')):
        return ('upstream Blazar 18 is not installed at %s: run '
                'tools/blazar/setup-venv.sh (or set '
                'BLAZAR_EXT_UPSTREAM_VENV)' % venv())
    return None


def _run(args: list, url: str) -> None:
    with tempfile.NamedTemporaryFile('w', suffix='.conf') as conf:
        conf.write('[database]\nconnection = %s\n' % url)
        conf.flush()
        proc = subprocess.run(
            [os.path.join(venv(), 'bin', 'blazar-db-manage'),
             '--config-file', conf.name] + args,
            capture_output=True, text=True, timeout=300)
    if proc.returncode:
        raise RuntimeError('blazar-db-manage %s failed:\n%s'
                           % (' '.join(args), proc.stderr[-3000:]))


def build_schema(url: str, dialect: str, revision: str = 'head') -> None:
    """Upstream Blazar's schema at ``revision`` in the empty database."""
    if dialect == 'postgresql':
        proc = subprocess.run(
            [os.path.join(venv(), 'bin', 'python'), '-c',
             _CREATE_FROM_MODELS, url],
            capture_output=True, text=True, timeout=300)
        if proc.returncode:
            raise RuntimeError('create_all failed:\n%s' % proc.stderr)
        _run(['stamp', revision], url)
    else:
        _run(['upgrade', revision], url)


def stamp(url: str, revision: str) -> None:
    _run(['stamp', revision], url)


class SourceDatabase:
    """A fresh database on ``dialect`` (mysql, postgresql), dropped by
    ``drop()``; skips (through ``skip``) where the server is absent."""

    def __init__(self, dialect: str, skip):
        try:
            self.backend = provision.Backend.backend_for_database_type(
                dialect)
        except Exception as exc:  # oslo.db's BackendNotAvailable
            skip('%s is not available: %s' % (dialect, exc))
        self.dialect = dialect
        self.name = 'blazar_src_%s' % uuid.uuid4().hex[:12]
        self.backend.create_named_database(self.name)
        self.url = str(self.backend.provisioned_database_url(
            self.name).render_as_string(hide_password=False))

    def drop(self) -> None:
        self.backend.drop_named_database(self.name)
