"""GET /extensions: the static list of legacy extension descriptors."""

import json
import os

import webob.exc

from nova_clone.api import auth
from nova_clone.policies import admin as admin_policies

# (name, alias, description) of the legacy extensions Nova still lists.
with open(os.path.join(os.path.dirname(__file__), 'extensions.json')) as f:
    EXTENSIONS = [tuple(row) for row in json.load(f)]


def _view(name, alias, description):
    return {'name': name, 'alias': alias, 'description': description,
            'namespace': 'http://docs.openstack.org/compute/ext/fake_xml',
            'updated': '2014-12-03T00:00:00Z', 'links': []}


class ExtensionsController(object):

    def index(self, req):
        auth.get_context(req).can(admin_policies.EXTENSIONS)
        return {'extensions': [_view(*e) for e in EXTENSIONS]}

    def show(self, req, id):
        auth.get_context(req).can(admin_policies.EXTENSIONS)
        for ext in EXTENSIONS:
            if ext[1] == id:
                return {'extension': _view(*ext)}
        raise webob.exc.HTTPNotFound(
            explanation='The resource could not be found.')
