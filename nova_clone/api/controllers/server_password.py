"""/servers/{server_id}/os-server-password: the encrypted password a
guest posted to the metadata service, kept in system metadata as
password_0..password_3; GET shows it ('' when none), DELETE clears it
(204)."""

from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.policies import server_password as policies

# The password is split over this many system metadata items.
_CHUNKS = 4


def _password(instance):
    system_metadata = instance.system_metadata or {}
    return ''.join(system_metadata.get('password_%d' % n) or ''
                   for n in range(_CHUNKS))


class ServerPasswordController(object):

    def index(self, req, server_id):
        _context, instance = servers.authorized_server(
            req, server_id, policies.BASE % 'show', ['system_metadata'])
        return {'password': _password(instance)}

    @resource.response(204)
    def clear(self, req, server_id):
        context, instance = servers.authorized_server(
            req, server_id, policies.BASE % 'clear', ['system_metadata'])
        system_metadata = dict(instance.system_metadata or {})
        for n in range(_CHUNKS):
            system_metadata['password_%d' % n] = ''
        servers.compute_api().update_instance(
            context, instance, {'system_metadata': system_metadata})
