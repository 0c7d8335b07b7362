"""blazar-ext-status: checks to run before and after an upgrade.

    blazar-ext-status --config-file /etc/blazar-ext/blazar-ext.conf \
        upgrade check
    blazar-ext-status --all-in-one upgrade check

``--all-in-one`` checks the configuration as blazar-ext-all-in-one runs
it: with its embedded defaults (fake:// transport, noauth) under what the
configuration files say.

Exit codes follow oslo.upgradecheck: 0 all checks pass, 1 a warning,
2 a failure, 255 a check crashed.
"""

import os
import sys

from alembic import script as alembic_script
from oslo_config import cfg
from oslo_policy import opts as policy_opts
from oslo_policy import policy as oslo_policy
from oslo_serialization import jsonutils
from oslo_upgradecheck import upgradecheck
from sqlalchemy.engine import url as sa_url
import yaml

from blazar_ext.cmd import all_in_one
from blazar_ext.cmd import startup
from blazar_ext import conf
from blazar_ext.db import drivers
from blazar_ext.db import migration
from blazar_ext import enforcement

CONF = conf.CONF

Code = upgradecheck.Code
Result = upgradecheck.Result

_UPGRADE_HINT = ('Run "blazar-ext-db-manage --config-file <your '
                 'blazar-ext.conf> upgrade".')


def _redact(url: str) -> str:
    """The database URL without its password, for messages."""
    try:
        return sa_url.make_url(url).render_as_string(hide_password=True)
    except Exception:
        return '<unparsable [database] connection>'


def _known_revisions() -> set:
    """Every revision id in this code's migration tree."""
    scripts = alembic_script.ScriptDirectory.from_config(
        migration._config(engine=object()))
    return {rev.revision for rev in scripts.walk_revisions()}


ALL_IN_ONE_OPT = cfg.BoolOpt(
    'all-in-one', default=False,
    help='Check the configuration as blazar-ext-all-in-one runs it: with '
         'its embedded defaults (fake:// transport, noauth) under the '
         'configuration files.')


class Checks(upgradecheck.UpgradeCommands):
    """The checks; each returns an upgradecheck.Result."""

    def check(self) -> int:
        if CONF.all_in_one:
            all_in_one.apply_embedded_defaults()
        return super().check()

    def _check_database(self) -> Result:
        """The schema is at the newest revision this code knows."""
        head = migration.head()
        try:
            drivers.require(CONF.database.connection)
        except drivers.MissingDriver as exc:
            return Result(Code.FAILURE, str(exc))
        try:
            current = migration.version()
        except Exception as exc:
            return Result(Code.FAILURE,
                          'Cannot read the schema revision of %s: %s'
                          % (_redact(CONF.database.connection), exc))
        if current is None:
            return Result(Code.FAILURE,
                          'The database has no schema (expected revision '
                          '%s). %s' % (head, _UPGRADE_HINT))
        if current == head:
            return Result(Code.SUCCESS,
                          'Database schema at revision %s (head).' % head)
        if current not in _known_revisions():
            return Result(Code.FAILURE,
                          'The database is at revision %s, which this '
                          'version of blazar_ext does not know (its newest '
                          'is %s): the database was upgraded by newer '
                          'code.' % (current, head))
        return Result(Code.FAILURE,
                      'The database is at revision %s; this version of '
                      'blazar_ext needs %s. %s' % (current, head,
                                                   _UPGRADE_HINT))

    def _check_policy_file(self) -> Result:
        """A configured policy file exists, reads and parses as rules."""
        CONF.register_opts(policy_opts._options,
                           group=policy_opts._option_group)
        name = CONF.oslo_policy.policy_file
        path = CONF.find_file(name)
        default = next(opt.default for opt in policy_opts._options
                       if opt.dest == 'policy_file')
        if path is None:
            if name == default and not os.path.isabs(name):
                return Result(Code.SUCCESS,
                              'No policy file; the defaults in code apply.')
            return Result(Code.FAILURE,
                          '[oslo_policy] policy_file = %s cannot be found '
                          '(looked in the configuration directories).'
                          % name)
        try:
            with open(path) as policy_file:
                text = policy_file.read()
        except OSError as exc:
            return Result(Code.FAILURE,
                          'Cannot read the policy file %s: %s' % (path, exc))
        try:
            rules = yaml.safe_load(text)
            if rules is not None and not isinstance(rules, dict):
                raise ValueError('expected a mapping of rule names to '
                                 'check strings')
            oslo_policy.Rules.load(text)
        except (yaml.YAMLError, ValueError) as exc:
            return Result(Code.FAILURE,
                          'The policy file %s cannot be parsed: %s'
                          % (path, exc))
        if _is_json(text):
            return Result(Code.WARNING,
                          'The policy file %s is JSON, which oslo.policy '
                          'deprecates; convert it with '
                          'oslopolicy-convert-json-to-yaml.' % path)
        return Result(Code.SUCCESS,
                      'Policy file %s: %d rules.' % (path, len(rules or {})))

    def _check_enforcement_filters(self) -> Result:
        """Every filter in [enforcement] enabled_filters loads, as the
        manager will load them at start."""
        try:
            chain = enforcement.get_chain(CONF)
        except enforcement.FilterLoadError as exc:
            return Result(Code.FAILURE, str(exc))
        except Exception as exc:
            return Result(Code.FAILURE,
                          'The usage enforcement filters cannot be set up: '
                          '%s' % exc)
        return Result(Code.SUCCESS,
                      'Usage enforcement filters, in order: %s'
                      % (', '.join(chain.filter_names) or 'none'))

    def _check_keystone(self) -> Result:
        """[keystone_authtoken] can validate tokens, under keystone."""
        if CONF.api.auth_strategy != 'keystone':
            return Result(Code.SUCCESS, 'auth_strategy = %s: no Keystone '
                          'configuration needed.' % CONF.api.auth_strategy)
        problem = startup.keystone_problem(CONF)
        if problem:
            return Result(Code.FAILURE, problem + '.')
        if not CONF.keystone_authtoken.www_authenticate_uri:
            return Result(Code.WARNING, '[keystone_authtoken] '
                          'www_authenticate_uri is not set: a 401 does not '
                          'tell clients where to authenticate.')
        return Result(Code.SUCCESS, '[keystone_authtoken] auth_type = %s '
                      'with its required options.'
                      % CONF.keystone_authtoken.auth_type)

    def _check_database_connection(self) -> Result:
        """[database] connection answers (one attempt, no waiting)."""
        problem = startup.database_problem(CONF)
        if problem:
            return Result(Code.FAILURE, problem[0].upper() + problem[1:]
                          + '.')
        return Result(Code.SUCCESS, 'The database at %s answers.'
                      % _redact(CONF.database.connection))

    def _check_broker(self) -> Result:
        """A host of [DEFAULT] transport_url accepts connections."""
        if (CONF.transport_url or 'fake:').startswith('fake:'):
            return Result(Code.SUCCESS, 'transport_url is fake:// (one '
                          'process): no message broker to reach.')
        problem = startup.broker_problem(CONF)
        if problem:
            return Result(Code.FAILURE, problem[0].upper() + problem[1:]
                          + '.')
        return Result(Code.SUCCESS, 'The message broker answers.')

    _upgrade_checks = (
        ('Keystone authentication', _check_keystone),
        ('Database connection', _check_database_connection),
        ('Message broker', _check_broker),
        ('Database schema', _check_database),
        ('Policy file', _check_policy_file),
        ('Usage enforcement filters', _check_enforcement_filters),
    )


def _is_json(text: str) -> bool:
    try:
        jsonutils.loads(text)
    except ValueError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    if 'all_in_one' not in CONF:
        CONF.register_cli_opt(ALL_IN_ONE_OPT)
    return upgradecheck.main(
        CONF, project='blazar-ext', upgrade_command=Checks(),
        argv=sys.argv[1:] if argv is None else argv)


if __name__ == '__main__':
    sys.exit(main())
