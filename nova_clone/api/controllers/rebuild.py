"""The ``rebuild`` server action: a new image for the server, in place.

202 with the server's view: the short one with key_name (2.54) and
user_data (2.57) before 2.75, the full one after, plus adminPass when
instance passwords are enabled.
"""

import base64

import webob.exc

from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.api import personality
from nova_clone.api import resource
from nova_clone.api.schemas import rebuild as schema
from nova_clone.api import validation
from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone.policies import rebuild as policies

# Request keys -> the compute API's instance fields.
_FIELDS = {'name': 'display_name', 'description': 'display_description',
           'accessIPv4': 'access_ip_v4', 'accessIPv6': 'access_ip_v6',
           'hostname': 'hostname', 'user_data': 'user_data'}


def _changes(values):
    changes = {field: values[key] for key, field in _FIELDS.items()
               if key in values}
    for key in ('access_ip_v4', 'access_ip_v6'):
        if key in changes:
            changes[key] = changes[key] or None
    if 'OS-DCF:diskConfig' in values:
        changes['auto_disk_config'] = values['OS-DCF:diskConfig'] == 'AUTO'
    return changes


def _check_user_data(user_data):
    if user_data is None:
        return
    try:
        base64.b64decode(user_data, validate=True)
    except ValueError:
        raise common.bad_request('Userdata content cannot be decoded')


class RebuildController(object):

    @resource.response(202)
    @resource.action('rebuild')
    @validation.schema(schema.rebuild_v294, '2.94')
    @validation.schema(schema.rebuild_v290, '2.90', '2.93')
    @validation.schema(schema.rebuild_v263, '2.63', '2.89')
    @validation.schema(schema.rebuild_v257, '2.57', '2.62')
    @validation.schema(schema.rebuild_v254, '2.54', '2.56')
    @validation.schema(schema.rebuild_v219, '2.19', '2.53')
    @validation.schema(schema.rebuild, '2.1', '2.18')
    def rebuild(self, req, server_id, body):
        values = body['rebuild']
        context, instance = servers.authorized_server(
            req, server_id, policies.REBUILD,
            ['flavor', 'metadata', 'system_metadata', 'info_cache'])
        target = {'project_id': instance.project_id,
                  'user_id': instance.user_id}
        if values.get('trusted_image_certificates'):
            context.can(policies.REBUILD_TRUSTED_CERTS, target=target)
            # Certificates are only of use to a compute that verifies
            # image signatures, which this one does not.
            raise common.bad_request(
                'Image signature certificate validation is not enabled '
                'on this cloud.')
        _check_user_data(values.get('user_data'))
        image_href = values['imageRef']
        password = values.get('adminPass')
        if password is None and CONF.api.enable_instance_password:
            password = servers.generate_password()
        kwargs = _changes(values)
        if 'key_name' in values:
            kwargs['key_name'] = values['key_name']
        if 'metadata' in values:
            kwargs['metadata'] = values['metadata']
        try:
            servers.compute_api().rebuild(
                context, instance, image_href, password,
                files_to_inject=personality.injected_files(
                    context, values.get('personality')),
                preserve_ephemeral=values.get('preserve_ephemeral', False),
                reimage_boot_volume=microversion.is_supported(req, '2.93'),
                **kwargs)
        except exception.InstanceNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except exception.ImageNotFound:
            raise common.bad_request('Cannot find image for rebuild')
        except exception.KeypairNotFound:
            raise common.bad_request('Invalid key_name provided.')
        except (exception.ImageNotActive, exception.ImageUnacceptable,
                exception.FlavorDiskTooSmall,
                exception.FlavorMemoryTooSmall) as exc:
            raise common.bad_request(exc.format_message())
        return self._view(req, context, instance, password)

    @staticmethod
    def _view(req, context, instance, password):
        full = microversion.is_supported(req, '2.75')
        view = servers.server_view(req, context, instance, full=full)
        server = view['server']
        if not full and microversion.is_supported(req, '2.54'):
            server['key_name'] = instance.key_name
        if microversion.is_supported(req, '2.57'):
            # Its own key here, never the admin's OS-EXT-SRV-ATTR one.
            server.pop('OS-EXT-SRV-ATTR:user_data', None)
            server['user_data'] = instance.user_data
        if CONF.api.enable_instance_password:
            server['adminPass'] = password
        return view
