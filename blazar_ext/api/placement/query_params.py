"""Parsing of shared query parameters: resources, required, member_of."""

import re

from blazar_ext.api.placement import error_codes
from blazar_ext.api.placement import errors
from blazar_ext.api.placement import microversion
from blazar_ext.query import traits as trait_query

_UUID = re.compile(r'^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                   r'[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$')
_RESOURCE = re.compile(r'^([A-Z0-9_]+):([0-9]+)$')
# Amounts are compared with 32-bit integer columns.
_MAX_AMOUNT = 2147483647


def _bad(detail: str):
    return errors.HTTPError(400, detail, error_codes.QUERYPARAM_BAD_VALUE)


def resources(value: str) -> dict:
    """``VCPU:1,MEMORY_MB:512`` -> {'VCPU': 1, 'MEMORY_MB': 512}."""
    result = {}
    for element in value.split(','):
        match = _RESOURCE.match(element.strip())
        if not match or not 1 <= int(match.group(2)) <= _MAX_AMOUNT:
            raise _bad('Badly formed resources parameter. Expected resources '
                       'query string parameter in form: ?resources=VCPU:2,'
                       'MEMORY_MB:1024. Got: %s.' % element.strip())
        name, amount = match.group(1), int(match.group(2))
        if name in result:
            raise _bad('Badly formed resources parameter. Resource class '
                       '%s appears more than once.' % name)
        result[name] = amount
    return result


def required(req, values, name: str = 'required'):
    """A TraitRequirement; ``!`` from 1.22, ``in:`` from 1.39."""
    try:
        return trait_query.parse(
            values, allow_forbidden=microversion.at_least(req, '1.22'),
            allow_any_of=microversion.at_least(req, '1.39'))
    except trait_query.TraitRequirementError as exc:
        raise _bad('Invalid query string parameters: %s: %s'
                   % (name, exc))


def member_of(req, values) -> tuple:
    """(groups, forbidden): ``in:a,b`` any of; ``!a`` / ``!in:`` from 1.32.

    Several member_of parameters (1.24) must all hold.
    """
    if len(values) > 1 and not microversion.at_least(req, '1.24'):
        raise _bad('Multiple member_of parameters are not supported until '
                   'microversion 1.24.')
    groups, forbidden = [], set()
    for value in values:
        negate = value.startswith('!')
        if negate:
            if not microversion.at_least(req, '1.32'):
                raise _bad('Forbidden member_of parameters are not '
                           'supported until microversion 1.32.')
            value = value[1:]
        if value.startswith('in:'):
            uuids = value[3:].split(',')
        else:
            uuids = [value]
        for uuid in uuids:
            if not _UUID.match(uuid.strip()):
                raise _bad('Invalid query string parameters: Expected '
                           'member_of parameter to contain valid UUID(s). '
                           'Got: %s' % value)
        uuids = {u.strip() for u in uuids}
        if negate:
            forbidden |= uuids
        else:
            groups.append(uuids)
    both = forbidden.intersection(*groups) if groups else set()
    if both:
        raise _bad('Invalid member_of parameters: Aggregate %s is both '
                   'required and forbidden.' % ', '.join(sorted(both)))
    return groups, forbidden


def is_uuid(value: str) -> bool:
    return bool(_UUID.match(value)) and len(value) <= 36


def uuid(value: str, name: str) -> str:
    if not _UUID.match(value):
        raise _bad("Invalid query string parameters: '%s' is not a "
                   "'uuid' (%s)" % (value, name))
    return value
