"""The resource property language: parsing into a small AST.

The language is Blazar's JSON form, extended with Nova's extra-spec
operators::

    ["and", [">=", "$memory_mb", "4096"], ["==", "$gpu", "true"]]
    ["<all-in>", "$cpu_features", "aes", "avx"]

Parsing is pure: it checks the shape and the operators and returns frozen
dataclasses. Whether a property exists is the compiler's business, because
only the caller knows which properties exist.
"""

import dataclasses
import decimal
import json
import math
import re
from typing import Any

from blazar_ext import exceptions

# Comparisons of one property with one value. Numbers compare as numbers
# where both sides are numeric, otherwise as strings.
COMPARISONS = ('==', '!=', '<', '<=', '>', '>=')
# Comparisons that always compare strings, as Nova's extra specs do.
STRING_COMPARISONS = ('s==', 's!=', 's<', 's<=', 's>', 's>=')
# Substring match.
SUBSTRING = '<in>'
# Equal to any of several values; "<or>" is Nova's spelling of "in".
ANY_OF = ('in', '<or>')
# A list-valued property holds every listed token as a whole element.
ALL_IN = '<all-in>'
LOGICAL = ('and', 'or', 'not')

# Bounds that keep a hostile expression from producing an enormous query.
MAX_DEPTH = 32
MAX_NODES = 500

# Characters that separate the elements of a list-valued property stored as
# a string: '["aes", "avx"]', 'aes,avx' and 'aes avx' all hold aes and avx.
LIST_DELIMITERS = ('[', ']', '"', ',', ' ', '\t', '\n', '\r')

# The numbers both Python and SQL recognise identically (see sql.py): an
# optional minus, digits, and optional decimals; short enough to fit
# DECIMAL(65, 30) on MySQL.
_NUMBER = re.compile(r'-?[0-9]+(\.[0-9]+)?\Z')
MAX_NUMBER_LENGTH = 32


def operators_supported() -> list:
    """Every operator name the language accepts, in documentation order."""
    return (list(COMPARISONS) + list(LOGICAL) + list(ANY_OF) +
            [ALL_IN, SUBSTRING] + list(STRING_COMPARISONS))


def is_number(text: str) -> bool:
    """Whether ``text`` is a number the language compares numerically."""
    return (len(text) <= MAX_NUMBER_LENGTH and
            _NUMBER.match(text) is not None)


# What Python's float() (and so many scripts) read as NaN or an infinity.
_NON_FINITE = re.compile(r'\s*[+-]?(nan|inf|infinity)\s*\Z', re.IGNORECASE)


def spells_non_finite(text: str) -> bool:
    """Whether ``text`` reads as NaN or an infinity ("nan", "-Inf",
    "Infinity"): not a number here, yet a reader would take it for one."""
    return _NON_FINITE.match(text) is not None


def number_of(text: str) -> decimal.Decimal | None:
    """``text`` as a Decimal where is_number says it is one, else None."""
    return decimal.Decimal(text) if is_number(text) else None


@dataclasses.dataclass(frozen=True)
class Comparison:
    """``property op value``; op is a comparison, string comparison or
    ``<in>``."""

    op: str
    prop: str
    value: str


@dataclasses.dataclass(frozen=True)
class Membership:
    """``in`` / ``<or>`` (equals any value) or ``<all-in>`` (holds all)."""

    op: str
    prop: str
    values: tuple


@dataclasses.dataclass(frozen=True)
class And:
    items: tuple


@dataclasses.dataclass(frozen=True)
class Or:
    items: tuple


@dataclasses.dataclass(frozen=True)
class Not:
    item: Any


Node = Comparison | Membership | And | Or | Not


def properties_of(node) -> set:
    """The property names (without '$') an expression refers to."""
    if node is None:
        return set()
    if isinstance(node, (Comparison, Membership)):
        return {node.prop}
    if isinstance(node, Not):
        return properties_of(node.item)
    return set().union(*(properties_of(item) for item in node.items))


def values_of(node, prop: str) -> set:
    """The values an expression compares property ``prop`` with."""
    if node is None:
        return set()
    if isinstance(node, Comparison):
        return {node.value} if node.prop == prop else set()
    if isinstance(node, Membership):
        return set(node.values) if node.prop == prop else set()
    if isinstance(node, Not):
        return values_of(node.item, prop)
    return set().union(*(values_of(item, prop) for item in node.items))


def _invalid(field: str, reason: str) -> exceptions.Invalid:
    return exceptions.Invalid(reason='%s: %s' % (field, reason))


def _show(value) -> str:
    """A short JSON rendering of part of an expression for messages."""
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + '...'


class _NotFinite(ValueError):
    pass


def _not_a_number(name: str):
    raise _NotFinite('%s is not a JSON number' % name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite('%s is too large a number' % text[:40])
    return value


def parse(text_or_list, field: str = 'resource_properties'):
    """Parse an expression; None, '' and [] mean no filter (return None).

    Raises exceptions.Invalid naming ``field`` and the bad part.
    """
    if text_or_list is None:
        return None
    if isinstance(text_or_list, str):
        if not text_or_list.strip():
            return None
        try:
            expression = json.loads(text_or_list,
                                    parse_constant=_not_a_number,
                                    parse_float=_finite_float)
        except RecursionError:
            raise _invalid(field, 'the expression is nested too deeply')
        except _NotFinite as exc:
            raise _invalid(field, '%s; use a finite number' % exc)
        except ValueError as exc:
            raise _invalid(field, 'not valid JSON (%s)' % exc)
    else:
        expression = text_or_list
    if expression == []:
        return None
    parser = _Parser(field)
    return parser.node(expression, 1)


class _Parser:

    def __init__(self, field: str):
        self.field = field
        self.nodes = 0

    def fail(self, reason: str):
        raise _invalid(self.field, reason)

    def node(self, expression, depth: int):
        self.nodes += 1
        if depth > MAX_DEPTH:
            self.fail('the expression is nested more than %d levels deep'
                      % MAX_DEPTH)
        if self.nodes > MAX_NODES:
            self.fail('the expression has more than %d terms' % MAX_NODES)
        if not isinstance(expression, list) or not expression:
            self.fail('expected a non-empty list such as '
                      '["==", "$name", "value"], got %s' % _show(expression))
        op = expression[0]
        if not isinstance(op, str):
            self.fail('expected an operator name first, got %s'
                      % _show(expression))
        args = expression[1:]
        if op in ('and', 'or'):
            if not args:
                self.fail('"%s" needs at least one expression' % op)
            items = tuple(self.node(arg, depth + 1) for arg in args)
            return And(items) if op == 'and' else Or(items)
        if op == 'not':
            if len(args) != 1:
                self.fail('"not" takes exactly one expression, got %s'
                          % _show(expression))
            return Not(self.node(args[0], depth + 1))
        if op in COMPARISONS or op in STRING_COMPARISONS or op == SUBSTRING:
            if len(args) != 2:
                self.fail('"%s" takes a property and one value, got %s'
                          % (op, _show(expression)))
            prop = self.prop(args[0], expression)
            value = self.value(args[1], expression)
            if op == SUBSTRING and not value:
                self.fail('"<in>" needs a non-empty substring, got %s'
                          % _show(expression))
            return Comparison(op, prop, value)
        if op in ANY_OF or op == ALL_IN:
            if len(args) < 2:
                self.fail('"%s" takes a property and at least one value, '
                          'got %s' % (op, _show(expression)))
            prop = self.prop(args[0], expression)
            raw = args[1:]
            if len(raw) == 1 and isinstance(raw[0], list):
                # ["in", "$rack", ["r1", "r2"]] is accepted too.
                raw = raw[0]
                if not raw:
                    self.fail('"%s" needs at least one value, got %s'
                              % (op, _show(expression)))
            self.nodes += len(raw)
            if self.nodes > MAX_NODES:
                self.fail('the expression has more than %d terms'
                          % MAX_NODES)
            values = tuple(self.value(v, expression) for v in raw)
            if op == ALL_IN:
                for value in values:
                    self.token(value, expression)
            return Membership(op, prop, values)
        self.fail('unknown operator %s in %s; supported operators: %s'
                  % (_show(op), _show(expression),
                     ', '.join(operators_supported())))

    def prop(self, arg, expression) -> str:
        if (not isinstance(arg, str) or not arg.startswith('$') or
                len(arg) < 2):
            self.fail('expected a property such as "$memory_mb" after the '
                      'operator, got %s in %s' % (_show(arg),
                                                  _show(expression)))
        return arg[1:]

    def value(self, arg, expression) -> str:
        # JSON numbers and booleans are accepted and stored the way the host
        # API stores capability values (True -> 'true').
        if isinstance(arg, bool):
            return 'true' if arg else 'false'
        if isinstance(arg, int):
            return str(arg)
        if isinstance(arg, float):
            # Plain notation, so 1e3 is the number 1000.0, not '1000.0e0'.
            return format(decimal.Decimal(repr(arg)), 'f')
        if not isinstance(arg, str):
            self.fail('a value must be a string, number or boolean, got %s '
                      'in %s' % (_show(arg), _show(expression)))
        return arg

    def token(self, value: str, expression) -> None:
        if not value or any(d in value for d in LIST_DELIMITERS):
            self.fail('"<all-in>" elements must be non-empty and contain no '
                      'spaces, commas, brackets or quotes, got %s in %s'
                      % (_show(value), _show(expression)))
