"""Microversions: ``OpenStack-API-Version: placement X.Y``, 1.0 to 1.39.

The app parses the header once (microversion-parse) and stores the
version in the environ; handlers declare the versions they serve with the
:func:`version_range` decorator rather than branching on the header.
"""

import functools

import microversion_parse

from blazar_ext.api.placement import errors

SERVICE_TYPE = 'placement'
HEADER = 'OpenStack-API-Version'
ENV_KEY = 'placement.microversion'
MIN_VERSION = microversion_parse.Version(1, 0)
MAX_VERSION = microversion_parse.Version(1, 39)
VERSIONS = ['1.%d' % minor for minor in range(MAX_VERSION.minor + 1)]


class UnacceptableVersion(Exception):
    """The requested version is outside MIN_VERSION..MAX_VERSION."""


class InvalidVersion(Exception):
    """The header does not hold a version at all."""


def extract(environ) -> microversion_parse.Version:
    """The version asked for; the minimum when the header is absent."""
    headers = microversion_parse.headers_from_wsgi_environ(environ)
    value = microversion_parse.get_version(headers, SERVICE_TYPE)
    if value is None:
        return MIN_VERSION
    if value.strip() == 'latest':
        return MAX_VERSION
    try:
        version = microversion_parse.parse_version_string(value)
    except TypeError as exc:
        raise InvalidVersion(str(exc))
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise UnacceptableVersion('Unacceptable version header: %s' % value)
    return version


@functools.lru_cache(maxsize=64)
def parse(text: str) -> microversion_parse.Version:
    major, minor = text.split('.')
    return microversion_parse.Version(int(major), int(minor))


def of(req) -> microversion_parse.Version:
    return req.environ[ENV_KEY]


def at_least(req, text: str) -> bool:
    """True when the request's version is ``text`` or later."""
    return of(req) >= parse(text)


def version_range(min_version: str = '1.0', max_version: str | None = None,
                  absent_status: int = 404):
    """Serve the handler only within [min_version, max_version].

    Outside the range the route does not exist for that client: 404, as
    Placement answers; or 405 (``absent_status``) where Placement treats
    the method as not there yet on an existing path.
    """
    low = parse(min_version)
    high = parse(max_version) if max_version else MAX_VERSION

    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(req, *args, **kwargs):
            if not low <= of(req) <= high:
                if absent_status == 405:
                    raise errors.HTTPError(
                        405, 'The method %s is not allowed for this '
                             'resource.' % req.method)
                raise errors.HTTPError(
                    404, 'The resource could not be found.')
            return handler(req, *args, **kwargs)
        wrapper.min_version = low
        return wrapper
    return decorator


def header_value(version) -> str:
    return '%s %d.%d' % (SERVICE_TYPE, version.major, version.minor)
