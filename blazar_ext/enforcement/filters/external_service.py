"""ExternalServiceFilter: delegate the decision to an HTTP service.

The service implements POST /v1/check-create, /v1/check-update and
/v1/on-end (doc/source/enforcement.rst). 204 allows; 403 denies, with the
JSON body's "message" shown to the user; anything else, a timeout or a
connection error denies unless [enforcement_external] allow_on_error.
"""

from concurrent import futures
import json

from oslo_log import log as logging
import requests
from requests import adapters

from blazar_ext.enforcement import base
from blazar_ext.enforcement import keystone

LOG = logging.getLogger(__name__)

GENERIC_DENY = 'The usage enforcement service denied the request.'
UNAVAILABLE_DENY = ('The usage enforcement service is unavailable, so the '
                    'request cannot be approved. Try again later.')
# A 403 message is shown to the user; keep a runaway body out of the API.
MAX_MESSAGE_LENGTH = 1024
# Calls in flight at once, as many as pooled connections.
MAX_CALLS = 16


class ExternalServiceError(Exception):
    """The service did not give a decision (status, timeout, network)."""


class ExternalServiceFilter(base.BaseFilter):
    """POST the spec's payloads to [enforcement_external] endpoint_url."""

    def __init__(self, conf):
        super().__init__(conf)
        opts = conf.enforcement_external
        self.base_url = None
        if opts.endpoint_url:
            url = opts.endpoint_url.rstrip('/')
            # Upstream's base endpoint option points at .../v1 already.
            self.base_url = url if url.endswith('/v1') else url + '/v1'
        self.allow_on_error = opts.allow_on_error
        self.timeout = opts.timeout
        self._static_token = opts.token
        self._ks_session = None
        if self.base_url and not self._static_token:
            self._ks_session = keystone.load_session(conf)
        # One pooled HTTP session: connections to the service are reused
        # across requests and manager threads.
        self._http = requests.Session()
        pool = adapters.HTTPAdapter(pool_connections=1,
                                    pool_maxsize=MAX_CALLS)
        self._http.mount('http://', pool)
        self._http.mount('https://', pool)
        # requests' timeout bounds each socket read, not the answer: a
        # service trickling its answer a byte at a time would hold the
        # lease call for as long as it likes. Calls run here and are given
        # up on once the timeout has passed, whatever the socket does.
        self._calls = futures.ThreadPoolExecutor(
            MAX_CALLS, thread_name_prefix='enforcement-external')

    @property
    def active(self) -> bool:
        return bool(self.base_url)

    def _headers(self) -> dict:
        headers = {'Content-Type': 'application/json',
                   'Accept': 'application/json'}
        if self._static_token:
            headers['X-Auth-Token'] = self._static_token
        elif self._ks_session is not None:
            # keystoneauth caches the token and renews it before expiry.
            headers['X-Auth-Token'] = self._ks_session.get_token()
        return headers

    def _post(self, path: str, body: dict) -> None:
        """Return if allowed; raise EnforcementRejected or the error."""
        url = '%s/%s' % (self.base_url, path)
        call = None
        try:
            call = self._calls.submit(self._http.post, url,
                                      data=json.dumps(body),
                                      headers=self._headers(),
                                      timeout=self.timeout)
            resp = call.result(timeout=self.timeout)
        except (requests.Timeout, futures.TimeoutError) as exc:
            if call is not None:
                call.cancel()  # if it is still waiting for a free worker
            raise ExternalServiceError(
                'no answer from %s within %ss' % (url, self.timeout)
            ) from exc
        except requests.RequestException as exc:
            raise ExternalServiceError('%s: %s' % (url, exc)) from exc
        except Exception as exc:
            # keystoneauth failing to get a token lands here.
            raise ExternalServiceError(
                'could not call %s: %s' % (url, exc)) from exc
        if resp.status_code == 204:
            return
        if resp.status_code == 403:
            raise self.reject(self._message(resp))
        # Not shown to the user: the body may reveal the service's
        # internals. It is in the manager's log.
        raise ExternalServiceError('%s answered %d: %s' % (
            url, resp.status_code, resp.text[:MAX_MESSAGE_LENGTH]))

    @staticmethod
    def _message(resp: requests.Response) -> str:
        try:
            message = resp.json()['message']
        except (ValueError, KeyError, TypeError):
            LOG.debug('Enforcement service denied without a JSON message: '
                      '%s', resp.text[:MAX_MESSAGE_LENGTH])
            return GENERIC_DENY
        if not isinstance(message, str) or not message.strip():
            return GENERIC_DENY
        return message[:MAX_MESSAGE_LENGTH]

    def _decide(self, path: str, body: dict) -> None:
        try:
            self._post(path, body)
        except ExternalServiceError as exc:
            if self.allow_on_error:
                LOG.warning('Usage enforcement service error, allowing as '
                            '[enforcement_external] allow_on_error says: %s',
                            exc)
                return
            LOG.error('Usage enforcement service error, denying: %s', exc)
            raise self.reject(UNAVAILABLE_DENY) from exc

    def check_create(self, context: dict, lease: dict) -> None:
        if self.base_url:
            self._decide('check-create', {'context': context,
                                          'lease': lease})

    def check_update(self, context: dict, current_lease: dict,
                     lease: dict) -> None:
        if self.base_url:
            self._decide('check-update', {'context': context,
                                          'current_lease': current_lease,
                                          'lease': lease})

    def on_end(self, context: dict, lease: dict) -> None:
        if self.base_url:
            # The end goes ahead whatever the answer; the chain logs errors.
            self._post('on-end', {'context': context, 'lease': lease})
