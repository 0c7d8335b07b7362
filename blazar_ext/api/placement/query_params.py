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


_REQUIRED = 'Invalid query string parameters: '
_ANY_OF_FORM = 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC'


def _required_problem(exc: trait_query.TraitRequirementError,
                      allow_forbidden: bool) -> str:
    """Placement's message for a ``required`` value the parser refused."""
    value = exc.value
    if exc.kind == trait_query.ANY_OF_UNSUPPORTED:
        return (_REQUIRED + "The format '%s' only supported since "
                "microversion 1.39. Got: %s" % (_ANY_OF_FORM, value))
    if exc.kind == trait_query.FORBIDDEN_IN_ANY_OF:
        return (_REQUIRED + "The format '%s' does not support forbidden "
                "traits. Got: %s" % (_ANY_OF_FORM, value))
    if exc.kind == trait_query.EMPTY and value.startswith('in:'):
        form = _ANY_OF_FORM
    elif exc.kind == trait_query.EMPTY:
        form = ('HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden
                else 'HW_CPU_X86_VMX,CUSTOM_MAGIC')
    else:  # FORBIDDEN_UNSUPPORTED
        return (_REQUIRED + "Expected 'required' parameter value of the "
                "form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: %s" % value)
    return (_REQUIRED + "Expected 'required' parameter value of the form: "
            "%s. Got an empty trait in: %s" % (form, value))


def traits(req, key: str, check_conflicts: bool = True):
    """The TraitRequirement of ``key`` (``required``, ``required1``...):
    ``!`` from 1.22, ``in:`` from 1.39. Names are not checked here: an
    unknown one is a 400 naming it once the traits are looked up."""
    allow_forbidden = microversion.at_least(req, '1.22')
    allow_any_of = microversion.at_least(req, '1.39')
    groups, forbidden = [], frozenset()
    for value in required_values(req, key):
        try:
            more, less = trait_query.parse_value(value, allow_forbidden,
                                                 allow_any_of)
        except trait_query.TraitRequirementError as exc:
            raise errors.HTTPError(400, _required_problem(
                exc, allow_forbidden))
        groups += more
        forbidden |= less
    conflicts = trait_query.conflicts(groups, forbidden)
    if check_conflicts and conflicts:
        raise errors.HTTPError(
            400, 'Conflicting required and forbidden traits found in '
            'the following traits keys: %s' % ', '.join(
                '%s: (%s)' % (key, ', '.join(sorted(names)))
                for names in conflicts))
    return trait_query.requirement(groups, forbidden)


def in_tree(value: str) -> str:
    value = value.strip()
    if not _UUID.match(value):
        raise errors.HTTPError(
            400, "Invalid query string parameters: Expected 'in_tree' "
            "parameter to be a format of uuid. Got: %s" % value)
    return value
