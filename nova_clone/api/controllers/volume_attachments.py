"""/servers/{server_id}/os-volume_attachments[/{volume_id}]: list, show,
attach, update (swap, or delete_on_termination from 2.85), detach.

The view grows with the microversion: ``tag`` from 2.70,
``delete_on_termination`` from 2.79, ``attachment_id`` and ``bdm_uuid``
instead of ``id`` from 2.89.  An attach answers 200 with the reserved
device before 2.101 and 202 without a body from then on.
"""

from oslo_utils import strutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import microversion
from nova_clone.api import resource
from nova_clone.api.schemas import volume_attachments as schema
from nova_clone.api import validation
from nova_clone.compute.api import volumes
from nova_clone.compute import vm_states
from nova_clone import exception
from nova_clone.policies import volumes_attachments as va_policies


_SHELVED = (vm_states.SHELVED, vm_states.SHELVED_OFFLOADED)


def _not_attached(server_id, volume_id):
    return webob.exc.HTTPNotFound(explanation=(
        'Instance %s is not attached to volume %s' % (server_id,
                                                       volume_id)))


def _view(req, bdm, server_id, attach_answer=False):
    view = {'device': bdm.device_name, 'serverId': server_id,
            'volumeId': bdm.volume_id}
    if attach_answer or not microversion.is_supported(req, '2.89'):
        view['id'] = bdm.volume_id
    if microversion.is_supported(req, '2.70'):
        view['tag'] = bdm.tag
    if microversion.is_supported(req, '2.79'):
        view['delete_on_termination'] = bdm.delete_on_termination
    if not attach_answer and microversion.is_supported(req, '2.89'):
        view['attachment_id'] = bdm.attachment_id
        view['bdm_uuid'] = bdm.uuid
    return view


class VolumeAttachmentController(object):

    def _load(self, req, server_id, action, change=None):
        context = auth.get_context(req)
        instance = servers.get_server(req, server_id)
        context.can(va_policies.POLICY_ROOT % action,
                    target={'project_id': instance.project_id})
        if change and instance.vm_state in _SHELVED and \
                not microversion.is_supported(req, '2.20'):
            # Shelved servers take volumes from 2.20 on.
            raise exception.InstanceInvalidState(
                instance_uuid=instance.uuid, attr='vm_state',
                state=instance.vm_state, method=change)
        return context, instance

    @staticmethod
    def _attachment(context, instance, server_id, volume_id):
        """The volume's BDM, or 404."""
        with volumes.in_cell(context, instance) as cctxt:
            try:
                return volumes.get_volume_bdm(cctxt, instance, volume_id)
            except exception.VolumeBDMNotFound:
                raise _not_attached(server_id, volume_id)

    @staticmethod
    def _volume(context, volume_id, in_body=False):
        try:
            return servers.compute_api().volume_api.get(context, volume_id)
        except exception.VolumeNotFound as exc:
            # A missing volume named in the body is the request's fault.
            if in_body:
                raise webob.exc.HTTPBadRequest(
                    explanation=exc.format_message())
            raise

    @validation.query_schema(schema.index_query_v275, '2.75')
    @validation.query_schema(schema.index_query, '2.1', '2.74')
    def index(self, req, server_id):
        context, instance = self._load(req, server_id, 'index')
        with volumes.in_cell(context, instance) as cctxt:
            bdms = volumes.volume_bdms(cctxt, instance)
        limit, offset = common.last_value(req, 'limit'), \
            common.last_value(req, 'offset')
        offset = int(offset or 0)
        bdms = bdms[offset:offset + int(limit)] if limit is not None \
            else bdms[offset:]
        return {'volumeAttachments': [_view(req, b, server_id)
                                      for b in bdms]}

    def show(self, req, server_id, volume_id):
        context, instance = self._load(req, server_id, 'show')
        bdm = self._attachment(context, instance, server_id, volume_id)
        return {'volumeAttachment': _view(req, bdm, server_id)}

    @validation.schema(schema.create_v279, '2.79')
    @validation.schema(schema.create_v249, '2.49', '2.78')
    @validation.schema(schema.create, '2.1', '2.48')
    def create(self, req, server_id, body):
        context, instance = self._load(req, server_id, 'create',
                                       'attach_volume')
        params = body['volumeAttachment']
        delete_on_termination = strutils.bool_from_string(
            params.get('delete_on_termination', False), strict=True)
        bdm = servers.compute_api().attach_volume(
            context, instance, params['volumeId'],
            device=params.get('device'), tag=params.get('tag'),
            supports_multiattach=microversion.is_supported(req, '2.60'),
            delete_on_termination=delete_on_termination)
        if microversion.is_supported(req, '2.101'):
            return resource.ResponseObject(code=202)
        view = {'device': bdm.device_name if bdm is not None else None,
                'id': params['volumeId'], 'serverId': server_id,
                'volumeId': params['volumeId']}
        if microversion.is_supported(req, '2.70'):
            view['tag'] = params.get('tag')
        if microversion.is_supported(req, '2.79'):
            view['delete_on_termination'] = delete_on_termination
        return {'volumeAttachment': view}

    @resource.response(202)
    @validation.schema(schema.update_v285, '2.85')
    @validation.schema(schema.update, '2.1', '2.84')
    def update(self, req, server_id, volume_id, body):
        params = body['volumeAttachment']
        if not microversion.is_supported(req, '2.85') or \
                params['volumeId'] != volume_id:
            self._swap(req, server_id, volume_id, params['volumeId'])
            return None
        context, instance = self._load(req, server_id, 'update')
        bdm = self._attachment(context, instance, server_id, volume_id)
        shown = {'id': bdm.volume_id, 'serverId': server_id,
                 'device': bdm.device_name, 'tag': bdm.tag}
        for key, current in shown.items():
            if key in params and params[key] != current:
                raise common.bad_request(
                    'The %s property of the attachment cannot be updated.'
                    % key)
        if 'delete_on_termination' in params:
            volumes.update_delete_on_termination(
                context, instance, volume_id, strutils.bool_from_string(
                    params['delete_on_termination'], strict=True))
        return None

    def _swap(self, req, server_id, old_volume_id, new_volume_id):
        context, instance = self._load(req, server_id, 'swap')
        old_volume = self._volume(context, old_volume_id)
        new_volume = self._volume(context, new_volume_id, in_body=True)
        try:
            servers.compute_api().swap_volume(context, instance, old_volume,
                                              new_volume)
        except exception.VolumeBDMNotFound:
            raise webob.exc.HTTPNotFound(explanation=(
                'The volume was either invalid or not attached to the '
                'instance.'))

    @resource.response(202)
    def delete(self, req, server_id, volume_id):
        context, instance = self._load(req, server_id, 'delete',
                                       'detach_volume')
        volume = self._volume(context, volume_id)
        try:
            servers.compute_api().detach_volume(context, instance, volume)
        except exception.VolumeBDMNotFound:
            raise _not_attached(server_id, volume_id)
