"""Rates: what a resource costs in credits per hour.

A rate applies to one resource type and, for hosts, to the hosts its
property expression (the resource_properties language) matches; the first
rate that matches a resource prices it, and [budgets] default_rate prices
what none matches. Instances are priced per instance-hour plus per vCPU
and per GB of memory; floating IPs per address-hour.

Rates come from the YAML file [budgets] rates_file when it is set (checked
at start, read again on SIGHUP), else from the ones set with PUT /v1/rates.
"""

import decimal
import json
import threading

from oslo_config import cfg
from oslo_log import log as logging
import yaml

from blazar_ext.db.api.budgets import cost as budget_cost
from blazar_ext import exceptions
from blazar_ext.query import language

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

HOST_TYPE = 'physical:host'
INSTANCE_TYPES = ('virtual:instance', 'flavor:instance')
AMOUNTS = ('credits_per_hour', 'credits_per_vcpu_hour', 'credits_per_gb_hour')
FIELDS = ('resource_type', 'properties') + AMOUNTS
# Credits are kept to four decimal places.
QUANTUM = decimal.Decimal('0.0001')


class RatesFileError(exceptions.ConfigurationError):
    """The rates file cannot be read or a rate in it is wrong."""


def credits(value, where: str) -> decimal.Decimal:
    """A non-negative finite amount of credits; Invalid otherwise."""
    if isinstance(value, bool) or not isinstance(
            value, (int, float, str, decimal.Decimal)):
        raise exceptions.Invalid(reason='%s must be a number, got %r'
                                 % (where, value))
    try:
        amount = decimal.Decimal(str(value))
    except decimal.InvalidOperation:
        raise exceptions.Invalid(reason='%s must be a number, got %r'
                                 % (where, value))
    if not amount.is_finite() or amount < 0:
        raise exceptions.Invalid(
            reason='%s must be a finite number of at least 0, got %s'
                   % (where, value))
    return amount.quantize(QUANTUM)


def validate(raw, where: str) -> dict:
    """One rate, checked and normalized; Invalid naming ``where``."""
    if not isinstance(raw, dict):
        raise exceptions.Invalid(reason='%s must be an object' % where)
    unknown = sorted(set(raw) - set(FIELDS))
    if unknown:
        raise exceptions.Invalid(
            reason='%s: unknown field(s) %s; a rate has %s'
                   % (where, ', '.join(unknown), ', '.join(FIELDS)))
    resource_type = raw.get('resource_type')
    if not isinstance(resource_type, str) or ':' not in resource_type:
        raise exceptions.Invalid(
            reason='%s: resource_type must be a resource type such as '
                   'physical:host, got %r' % (where, resource_type))
    properties = raw.get('properties')
    if properties in ('', []):
        properties = None
    if properties is not None:
        if resource_type != HOST_TYPE:
            raise exceptions.Invalid(
                reason='%s: properties apply to physical:host rates only'
                       % where)
        if isinstance(properties, str):
            try:
                properties = json.loads(properties)
            except ValueError as exc:
                raise exceptions.Invalid(
                    reason='%s: properties: not valid JSON (%s)'
                           % (where, exc))
        language.parse(properties, '%s: properties' % where)
        budget_cost.check_rate_expression(properties,
                                          '%s: properties' % where)
    rate = {'resource_type': resource_type, 'properties': properties}
    for name in AMOUNTS:
        rate[name] = credits(raw.get(name, 0), '%s: %s' % (where, name))
    if (rate['credits_per_vcpu_hour'] or rate['credits_per_gb_hour']) and \
            resource_type not in INSTANCE_TYPES:
        raise exceptions.Invalid(
            reason='%s: credits_per_vcpu_hour and credits_per_gb_hour '
                   'apply to instance rates only' % where)
    return rate


def validate_list(raws) -> list:
    """Rates given through the API: a list of rate objects."""
    if not isinstance(raws, list):
        raise exceptions.Invalid(reason='rates must be a list')
    return [validate(raw, 'rates[%d]' % i) for i, raw in enumerate(raws)]


def parse_file(text: str, path: str = 'rates file') -> list:
    """The rates of a YAML document; RatesFileError naming the line."""
    try:
        document = yaml.safe_load(text)
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, 'problem_mark', None)
        line = ' line %d:' % (mark.line + 1) if mark else ''
        raise RatesFileError(reason='%s:%s not valid YAML (%s)'
                             % (path, line, getattr(exc, 'problem', exc)))
    if document is None:
        return []
    if not isinstance(document, dict) or not isinstance(
            document.get('rates', []), list):
        raise RatesFileError(reason='%s line 1: the file must be a mapping '
                                    'with a "rates" list' % path)
    items = dict((k.value, v) for k, v in node.value).get('rates')
    rates = []
    for i, raw in enumerate(document.get('rates') or []):
        try:
            rates.append(validate(raw, 'rates[%d]' % i))
        except exceptions.Invalid as exc:
            reason = str(exc.kwargs.get('reason', exc))
            raise RatesFileError(reason='%s line %d: %s' % (
                path, _line(items.value[i], reason), reason))
    return rates


def _line(item, reason: str) -> int:
    """The line of the rate's field the reason names, else of the rate."""
    for key, _value in getattr(item, 'value', None) or []:
        if isinstance(key, yaml.ScalarNode) and isinstance(
                key.value, str) and ': %s' % key.value in reason:
            return key.start_mark.line + 1
    return item.start_mark.line + 1


def load_file(path: str) -> list:
    try:
        with open(path, encoding='utf-8') as stream:
            text = stream.read()
    except OSError as exc:
        raise RatesFileError(reason='cannot read %s: %s' % (path, exc))
    return parse_file(text, path)


class RateSource:
    """The rates in force: the file's, kept across bad reloads, or None
    when the API's (in the database) apply."""

    def __init__(self, conf: cfg.ConfigOpts = CONF):
        self.path = conf.budgets.rates_file
        self._lock = threading.Lock()
        self._rates = load_file(self.path) if self.path else None

    @property
    def from_file(self) -> bool:
        return bool(self.path)

    def file_rates(self) -> list | None:
        with self._lock:
            return self._rates

    def reload(self) -> bool:
        """Read the file again; on error keep the old rates, log, False."""
        if not self.path:
            return True
        try:
            rates = load_file(self.path)
        except RatesFileError as exc:
            LOG.error('Rates not reloaded, the rates in force stay: %s', exc)
            return False
        with self._lock:
            self._rates = rates
        LOG.info('Rates reloaded from %s: %d rate(s)', self.path, len(rates))
        return True


def shown(rate: dict) -> dict:
    """A rate as the API shows it (amounts as numbers)."""
    return dict(rate, **{name: float(rate[name]) for name in AMOUNTS})
