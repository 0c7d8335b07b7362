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
# Every microversion served, one comment each (the docs' version history,
# doc/source/user/placement-versions.rst, says the same).
VERSIONS = [
    '1.0',  # Initial version: resource providers, inventories, usages, ...
    '1.1',  # Resource provider aggregates (GET/PUT ...
    '1.2',  # Custom resource classes (/resource_classes).
    '1.3',  # member_of on GET /resource_providers.
    '1.4',  # resources on GET /resource_providers: providers with that ...
    '1.5',  # DELETE /resource_providers/{uuid}/inventories removes all ...
    '1.6',  # Traits (/traits, /resource_providers/{uuid}/traits).
    '1.7',  # PUT /resource_classes/{name} creates or checks a custom ...
    '1.8',  # project_id and user_id required in PUT ...
    '1.9',  # GET /usages?project_id=&user_id=.
    '1.10',  # GET /allocation_candidates.
    '1.11',  # The allocations link on resource providers.
    '1.12',  # PUT /allocations/{consumer_uuid} takes allocations as a ...
    '1.13',  # POST /allocations: several consumers in one transaction.
    '1.14',  # Nested providers: parent_provider_uuid, root_provider_uuid, ...
    '1.15',  # Cache-Control and Last-Modified headers on GET and PUT ...
    '1.16',  # limit on GET /allocation_candidates.
    '1.17',  # required traits on GET /allocation_candidates; traits in ...
    '1.18',  # required traits on GET /resource_providers.
    '1.19',  # PUT aggregates takes and returns ...
    '1.20',  # POST /resource_providers returns the provider.
    '1.21',  # member_of on GET /allocation_candidates.
    '1.22',  # Forbidden traits (!TRAIT) in required.
    '1.23',  # A code in every error (placement.undefined_code by default).
    '1.24',  # Several member_of parameters, all of which must hold.
    '1.25',  # Granular request groups (resourcesN, requiredN, member_ofN) ...
    '1.26',  # An inventory's reserved may equal its total.
    '1.27',  # Provider summaries list every resource class of the provider.
    '1.28',  # Consumer generations on allocations.
    '1.29',  # Nested and sharing providers in allocation candidates; tree ...
    '1.30',  # POST /reshaper: move inventories and allocations atomically.
    '1.31',  # in_tree (and in_treeN) on GET /allocation_candidates.
    '1.32',  # Forbidden aggregates (!uuid, !in:) in member_of.
    '1.33',  # Request group suffixes may be words ([a-zA-Z0-9_-]{1,64}).
    '1.34',  # mappings in allocation requests and accepted in allocation ...
    '1.35',  # root_required on GET /allocation_candidates.
    '1.36',  # same_subtree and resourceless request groups.
    '1.37',  # A provider may be re-parented or un-parented.
    '1.38',  # Consumer types (consumer_type) on allocations and usages.
    '1.39',  # Any-of traits (in:A,B) in required, and several required ...
]


class UnacceptableVersion(Exception):
    """The requested version is outside MIN_VERSION..MAX_VERSION."""


class InvalidVersion(Exception):
    """The header does not hold a version at all."""


# Where a WSGI server puts OpenStack-API-Version (PEP 3333: upper case).
_ENVIRON_KEY = 'HTTP_' + HEADER.upper().replace('-', '_')


def extract(environ) -> microversion_parse.Version:
    """The version asked for; the minimum when the header is absent."""
    return _version_of(environ.get(_ENVIRON_KEY))


@functools.lru_cache(maxsize=256)
def _version_of(value: str | None) -> microversion_parse.Version:
    """extract() of a header value: the same few values come on every
    request (microversion-parse's parsing was a twentieth of a small
    GET's time in process). Errors are raised again each time."""
    headers = {} if value is None else {_ENVIRON_KEY: value}
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
