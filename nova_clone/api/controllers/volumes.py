"""/os-volumes (the Cinder proxy, to 2.35; 404 above): volumes in
nova-volume's old shape (displayName, availabilityZone, attachments of
server and device)."""

import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import resource
from nova_clone.api.schemas import volumes as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import volumes as vol_policies
from nova_clone.volume import cinder

_TIME_FORMAT = '%Y-%m-%dT%H:%M:%S.%f'


def _view(vol):
    attachments = [{'id': vol['id'], 'volumeId': vol['id'],
                    'serverId': server_id, 'device': att['mountpoint']}
                   for server_id, att in vol['attachments'].items()]
    created = vol['created_at']
    return {'id': vol['id'], 'status': vol['status'], 'size': vol['size'],
            'availabilityZone': vol['availability_zone'],
            'createdAt': created.strftime(_TIME_FORMAT) if created
            else None,
            'attachments': attachments or [{}],
            'displayName': vol['display_name'],
            'displayDescription': vol['display_description'],
            'volumeType': vol['volume_type_id'],
            'snapshotId': vol['snapshot_id'],
            'metadata': vol['volume_metadata'] or {}}


class VolumeController(object):

    def __init__(self, volume_api=None):
        self.volume_api = volume_api or cinder.API()

    def _list(self, req, rule):
        context = auth.get_context(req)
        context.can(vol_policies.VOLUMES % rule)
        volumes = self.volume_api.get_all(context)
        return {'volumes': [_view(v) for v in common.limited(volumes, req)]}

    @resource.api_version(None, '2.35')
    def index(self, req):
        return self._list(req, 'list')

    @resource.api_version(None, '2.35')
    def detail(self, req):
        return self._list(req, 'detail')

    @resource.api_version(None, '2.35')
    def show(self, req, volume_id):
        context = auth.get_context(req)
        context.can(vol_policies.VOLUMES % 'show')
        try:
            return {'volume': _view(self.volume_api.get(context,
                                                        volume_id))}
        except exception.VolumeNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())

    @resource.api_version(None, '2.35')
    @validation.schema(schema.create)
    def create(self, req, body):
        context = auth.get_context(req)
        context.can(vol_policies.VOLUMES % 'create')
        values = body['volume']
        snapshot = None
        if values.get('snapshot_id'):
            try:
                snapshot = self.volume_api.get_snapshot(
                    context, values['snapshot_id'])
            except exception.SnapshotNotFound as exc:
                raise webob.exc.HTTPNotFound(
                    explanation=exc.format_message())
        try:
            vol = self.volume_api.create(
                context, int(values['size']), values.get('display_name'),
                values.get('display_description'), snapshot=snapshot,
                volume_type=values.get('volume_type'),
                metadata=values.get('metadata'),
                availability_zone=values.get('availability_zone'))
        except exception.InvalidVolume as exc:
            raise common.bad_request(exc.format_message())
        except exception.VolumeLimitExceeded as exc:
            raise webob.exc.HTTPForbidden(explanation=exc.format_message())
        return {'volume': _view(vol)}

    @resource.api_version(None, '2.35')
    @resource.response(202)
    def delete(self, req, volume_id):
        context = auth.get_context(req)
        context.can(vol_policies.VOLUMES % 'delete')
        try:
            self.volume_api.delete(context, volume_id)
        except exception.VolumeNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except exception.InvalidVolume as exc:
            raise common.bad_request(exc.format_message())
