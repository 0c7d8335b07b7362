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
    form = ('Badly formed resources parameter. Expected resources query '
            'string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024. ')
    if not value.strip():
        raise _bad(form + 'Got: empty string.')
    result = {}
    for element in value.split(','):
        name, sep, amount = element.partition(':')
        if sep and ':' not in amount:
            try:
                number = int(amount)
            except ValueError:
                raise _bad('Requested resource %s expected positive integer '
                           'amount. Got: %s.' % (name, amount))
            if number < 1:
                raise _bad('Requested resource %s requires amount >= 1. '
                           'Got: %d.' % (name, number))
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


def required_values(req, key: str) -> list:
    """Every value of a repeated ``required`` from 1.39, else the last."""
    values = req.GET.getall(key)
    return values if microversion.at_least(req, '1.39') else values[-1:]


def _member_of_value(value: str) -> tuple:
    """(required any-of set, forbidden set) of one member_of value."""
    if ',' in value and not value.startswith(('in:', '!in:')):
        raise _bad("Multiple values for 'member_of' must be prefixed with "
                   "the 'in:' or '!in:' keyword using the valid "
                   "microversion. Got: %s" % value)
    required = forbidden = set()
    if value.startswith('!in:'):
        forbidden = set(value[4:].split(','))
    elif value.startswith('!'):
        forbidden = {value[1:]}
    elif value.startswith('in:'):
        required = set(value[3:].split(','))
    else:
        required = {value}
    for uuid in required | forbidden:
        if not _UUID.match(uuid):
            raise _bad("Invalid query string parameters: Expected "
                       "'member_of' parameter to contain valid UUID(s). "
                       "Got: %s" % uuid)
    return required, forbidden


def member_of(req, values, suffix: str = '') -> tuple:
    """(groups, forbidden): ``in:a,b`` any of; ``!a`` / ``!in:`` from 1.32.

    Several member_of parameters (1.24) must all hold. An aggregate both
    required and forbidden simply matches nothing, as in Placement.
    """
    if len(values) > 1 and not microversion.at_least(req, '1.24'):
        raise _bad('Multiple member_of%s parameters are not supported'
                   % suffix)
    groups, forbidden = [], set()
    for value in values:
        required, less = _member_of_value(value)
        if required:
            groups.append(required)
        if less:
            if not microversion.at_least(req, '1.32'):
                raise _bad('Forbidden member_of%s parameters are not '
                           'supported in the specified microversion'
                           % suffix)
            forbidden |= less
    return groups, forbidden


def is_uuid(value: str) -> bool:
    return bool(_UUID.match(value)) and len(value) <= 36


def uuid(value: str, name: str) -> str:
    if not _UUID.match(value):
        raise _bad("Invalid query string parameters: '%s' is not a "
                   "'uuid' (%s)" % (value, name))
    return value


def _trait_value(value: str, allow_forbidden: bool,
                 allow_any_of: bool) -> tuple:
    """(required sets, forbidden) of one ``required`` value, with
    Placement's messages."""
    prefix = 'Invalid query string parameters: '
    if value.startswith('in:'):
        if not allow_any_of:
            raise errors.HTTPError(
                400, prefix + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' "
                "only supported since microversion 1.39. Got: %s" % value)
        names = {name.strip() for name in value[3:].split(',')}
        if not all(names):
            raise errors.HTTPError(
                400, prefix + "Expected 'required' parameter value of the "
                "form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait "
                "in: %s" % value)
        if any(name.startswith('!') for name in names):
            raise errors.HTTPError(
                400, prefix + "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' "
                "does not support forbidden traits. Got: %s" % value)
        return [names], set()
    names = [name.strip() for name in value.split(',')]
    forbidden = {name[1:] for name in names if name.startswith('!')}
    form = ('HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden
            else 'HW_CPU_X86_VMX,CUSTOM_MAGIC')
    if not all(names) or not all(forbidden):
        raise errors.HTTPError(
            400, prefix + "Expected 'required' parameter value of the form: "
            "%s. Got an empty trait in: %s" % (form, value))
    if forbidden and not allow_forbidden:
        raise errors.HTTPError(
            400, prefix + "Expected 'required' parameter value of the form: "
            "HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: %s" % value)
    return [{name} for name in names if not name.startswith('!')], forbidden


def traits(req, key: str, check_conflicts: bool = True):
    """The TraitRequirement of ``key`` (``required``, ``required1``...)."""
    values = required_values(req, key)
    sets, forbidden = [], set()
    for value in values:
        more, less = _trait_value(value, microversion.at_least(req, '1.22'),
                                  microversion.at_least(req, '1.39'))
        sets += more
        forbidden |= less
    if check_conflicts:
        conflicts = [names for names in sets if names <= forbidden]
        if conflicts:
            raise errors.HTTPError(
                400, 'Conflicting required and forbidden traits found in '
                'the following traits keys: %s' % ', '.join(
                    '%s: (%s)' % (key, ', '.join(sorted(names)))
                    for names in conflicts))
    return trait_query.TraitRequirement(
        required=frozenset(n for names in sets if len(names) == 1
                           for n in names),
        forbidden=frozenset(forbidden),
        any_of=tuple(frozenset(names) for names in sets if len(names) > 1))


def in_tree(value: str) -> str:
    value = value.strip()
    if not _UUID.match(value):
        raise errors.HTTPError(
            400, "Invalid query string parameters: Expected 'in_tree' "
            "parameter to be a format of uuid. Got: %s" % value)
    return value
