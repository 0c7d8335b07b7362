"""Stand-in for ``glance.tests.functional``: SynchronousAPIBase, serving
blazar_ext.

Glance's metadef functional tests derive from SynchronousAPIBase, which
builds Glance's WSGI pipeline in process and calls it with webob requests
(api_get, api_post, ...). This class offers the same methods, with the
same signatures and default headers, calling blazar_ext's API instead, on
a fresh migrated SQLite database per test under noauth. What differs:

* ``X-Tenant-Id`` (Glance's tests send the legacy header) is passed on as
  ``X-Project-Id`` as well, which keystonemiddleware sets and blazar_ext's
  noauth reads.
* start_server's options (cache, CORS, fake auth, ...) choose between
  Glance's paste pipelines; blazar_ext has one application, so they are
  accepted and ignored. Nothing about images or stores is set up.
"""

import uuid

from oslo_serialization import jsonutils
from oslotest import base
import webob

from blazar_ext.api import app as api_app
from blazar_ext.tests import fixtures


def _legacy_tenant_header(app):
    """X-Tenant-Id, when sent alone, as X-Project-Id too."""
    def wrapped(environ, start_response):
        tenant = environ.get('HTTP_X_TENANT_ID')
        if tenant is not None:
            environ['HTTP_X_PROJECT_ID'] = tenant
        return app(environ, start_response)
    return wrapped


class SynchronousAPIBase(base.BaseTestCase):
    """Calls blazar_ext's WSGI application directly, as Glance's class
    calls Glance's."""

    TENANT = str(uuid.uuid4())

    def setUp(self, single_store=False, bypass_headers=False):
        super().setUp()
        self.bypass_headers = bypass_headers
        self.useFixture(fixtures.ConfFixture())
        self.useFixture(fixtures.DatabaseFixture())
        self.api = None

    def start_server(self, **_options):
        """Build the application (every API family; /v2 is metadefs)."""
        self.api = _legacy_tenant_header(api_app.build(fixtures.CONF))

    def _headers(self, custom_headers=None):
        base_headers = {
            'X-Identity-Status': 'Confirmed',
            'X-Auth-Token': '932c5c84-02ac-4fe5-a9ba-620af0e2bb96',
            'X-User-Id': 'f9a41d13-0c13-47e9-bee2-ce4e8bfe958e',
            'X-Tenant-Id': self.TENANT,
            'Content-Type': 'application/json',
            'X-Roles': 'admin',
        }
        base_headers.update(custom_headers or {})
        return base_headers

    def api_request(self, method, url, headers=None, data=None,
                    json=None, body_file=None):
        """The application's webob.Response to one request."""
        if not self.bypass_headers:
            headers = self._headers(headers)
        req = webob.Request.blank(url, method=method, headers=headers or {})
        if json and not data:
            data = jsonutils.dumps(json).encode()
        if body_file:
            req.body_file = body_file
        elif data:
            req.body = data
        return req.get_response(self.api)

    def api_get(self, url, headers=None, data=None, json=None):
        return self.api_request('GET', url, headers=headers, data=data,
                                json=json)

    def api_post(self, url, headers=None, data=None, json=None,
                 body_file=None):
        return self.api_request('POST', url, headers=headers, data=data,
                                json=json, body_file=body_file)

    def api_put(self, url, headers=None, data=None, json=None,
                body_file=None):
        return self.api_request('PUT', url, headers=headers, data=data,
                                json=json, body_file=body_file)

    def api_delete(self, url, headers=None, data=None, json=None):
        return self.api_request('DELETE', url, headers=headers, data=data,
                                json=json)

    def _create_metadef_resource(self, path=None, data=None,
                                 expected_code=201):
        resp = self.api_post(path, json=data)
        md_resource = jsonutils.loads(resp.text)
        self.assertEqual(expected_code, resp.status_code)
        return md_resource
