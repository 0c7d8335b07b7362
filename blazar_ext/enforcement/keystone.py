"""Keystone access for enforcement: the service user's session and project
name resolution for [enforcement] exempted_projects."""

import threading

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import session as ks_session
from oslo_config import cfg
from oslo_log import log as logging

LOG = logging.getLogger(__name__)
GROUP = 'enforcement_keystone'


def load_session(conf: cfg.ConfigOpts) -> ks_session.Session | None:
    """A keystoneauth session for [enforcement_keystone], or None.

    None when no auth_type is configured: the deployment runs without
    Keystone (static token, project ids only).
    """
    if not conf[GROUP].auth_type:
        return None
    auth = ks_loading.load_auth_from_conf_options(conf, GROUP)
    return ks_loading.load_session_from_conf_options(conf, GROUP, auth=auth)


class ProjectResolver:
    """Turns exempted_projects entries into project ids.

    Plain entries are ids. ``name@domain`` entries are looked up in
    Keystone the first time they are needed; a failed lookup is logged and
    tried again on the next request, so a Keystone outage at start does not
    lose the exemption for good.
    """

    def __init__(self, entries, session: ks_session.Session | None):
        self._session = session
        self._ids = set()
        self._names = []
        for entry in entries:
            entry = entry.strip()
            if not entry:
                continue
            if '@' in entry:
                name, _, domain = entry.rpartition('@')
                if session is None:
                    LOG.warning(
                        'Ignoring exempted project %s: resolving project '
                        'names needs Keystone credentials in '
                        '[enforcement_keystone]; use the project id.', entry)
                    continue
                self._names.append((name, domain))
            else:
                self._ids.add(entry)
        self._lock = threading.Lock()

    def project_ids(self) -> set:
        """The exempted project ids resolved so far (resolving the rest)."""
        if self._names:
            with self._lock:
                pending = []
                for name, domain in self._names:
                    project_id = self._lookup(name, domain)
                    if project_id is None:
                        pending.append((name, domain))
                    elif project_id:
                        self._ids.add(project_id)
                    # False: it does not exist; stop asking until restart.
                self._names = pending
        return self._ids

    def _get(self, path: str, params: dict) -> list:
        resp = self._session.get(
            path, params=params, raise_exc=True,
            endpoint_filter={'service_type': 'identity',
                             'interface': 'public', 'version': (3, 0)})
        return resp.json()

    def _lookup(self, name: str, domain: str) -> str | bool | None:
        """The id; None to retry later; False when it does not exist."""
        try:
            domains = self._get('/domains', {'name': domain})['domains']
            if not domains:
                LOG.warning('Exempted project %s@%s: no domain named %s.',
                            name, domain, domain)
                return False
            projects = self._get('/projects', {
                'name': name, 'domain_id': domains[0]['id']})['projects']
        except (ks_exc.ClientException, ValueError, KeyError) as exc:
            LOG.warning('Could not resolve exempted project %s@%s through '
                        'Keystone (will retry): %s', name, domain, exc)
            return None
        if not projects:
            LOG.warning('Exempted project %s@%s does not exist.', name,
                        domain)
            return False
        LOG.info('Exempted project %s@%s is %s.', name, domain,
                 projects[0]['id'])
        return projects[0]['id']
