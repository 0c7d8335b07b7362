"""Database drivers: say which extra to install when one is missing.

PyMySQL and psycopg2 are not installed with blazar_ext itself, as oslo.db
does not install them: they come as the extras ``blazar-ext[mysql]`` and
``blazar-ext[postgresql]`` (setup.cfg). Without this check a missing one
shows as a traceback ending in ``No module named 'pymysql'`` wherever the
first engine is made.
"""

import sys

import sqlalchemy as sa

# SQLAlchemy backend name -> (the URL's driver, the module the extra
# installs, extra).
EXTRAS = {
    'mysql': ('pymysql', 'pymysql', 'mysql'),
    'postgresql': ('psycopg2', 'psycopg2', 'postgresql'),
}


class MissingDriver(Exception):
    """The Python module a database URL's driver needs is not installed."""


def _redact(url: sa.engine.URL) -> str:
    return url.render_as_string(hide_password=True)


def require(connection: str, option: str = '[database] connection') -> None:
    """Raise MissingDriver, naming the extra to install, when the driver
    of the SQLAlchemy URL ``connection`` cannot be imported.

    URLs SQLAlchemy cannot parse, or whose dialect it does not know, are
    left to the code that connects, which reports them.
    """
    try:
        url = sa.engine.make_url(connection)
        dialect = url.get_dialect()
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError):
        return
    try:
        dialect.import_dbapi()
    except ImportError as exc:
        module = exc.name or url.get_driver_name()
        backend = url.get_backend_name()
        driver, driver_module, extra = EXTRAS.get(backend,
                                                  (None, None, None))
        hint = ("pip install 'blazar-ext[%s]' (from a checkout: "
                "pip install '.[%s]')" % (extra, extra))
        if module != driver_module:
            # Another driver (SQLAlchemy's default for a bare
            # postgresql:// is psycopg 3, mysql:// is mysqlclient).
            hint = 'install the Python module %s%s' % (
                module, ', or use %s+%s:// and %s' % (backend, driver, hint)
                if extra else '')
        raise MissingDriver(
            'No database driver for %s = %s: the Python module %s is not '
            'installed; %s.' % (option, _redact(url), module, hint))


def require_or_exit(connection: str, prog: str,
                    option: str = '[database] connection') -> None:
    """require(), ending the process with its one-line message (exit 1)."""
    try:
        require(connection, option)
    except MissingDriver as exc:
        sys.exit('%s: %s' % (prog, exc))
