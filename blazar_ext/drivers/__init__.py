"""Loading one configured driver from a stevedore namespace."""

from stevedore import driver

from blazar_ext import exceptions


def load(namespace: str, name: str, label: str,
         error: type = exceptions.ConfigurationError):
    """The driver ``name`` of ``namespace``, instantiated.

    Any failure (no such entry point, an import error, a constructor that
    raises) becomes ``error`` naming ``label`` (the option or the kind of
    driver), so a bad setting is one clear message, never a traceback.
    """
    try:
        return driver.DriverManager(namespace, name,
                                    invoke_on_load=True).driver
    except Exception as exc:
        raise error(reason='%s %r cannot be loaded: %s' % (label, name, exc))
