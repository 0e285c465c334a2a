"""/os-snapshots (the Cinder proxy, to 2.35; 404 above): volume
snapshots in nova-volume's old shape."""

from oslo_utils import strutils
from oslo_utils import timeutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api import resource
from nova_clone.api.schemas import snapshots as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import volumes as vol_policies
from nova_clone.volume import cinder


def _view(snap):
    created = snap.get('created_at')
    if isinstance(created, str):
        created = timeutils.parse_isotime(created).replace(
            tzinfo=None).strftime('%Y-%m-%dT%H:%M:%S.%f')
    return {'id': snap['id'], 'volumeId': snap['volume_id'],
            'status': snap['status'], 'size': snap['size'],
            'createdAt': created, 'displayName': snap.get('name'),
            'displayDescription': snap.get('description')}


class SnapshotController(object):

    def __init__(self, volume_api=None):
        self.volume_api = volume_api or cinder.API()

    def _list(self, req, rule):
        context = auth.get_context(req)
        context.can(vol_policies.SNAPSHOTS % rule)
        snaps = self.volume_api.get_all_snapshots(context)
        return {'snapshots': [_view(s) for s in common.limited(snaps, req)]}

    @resource.api_version(None, '2.35')
    def index(self, req):
        return self._list(req, 'list')

    @resource.api_version(None, '2.35')
    def detail(self, req):
        return self._list(req, 'detail')

    @resource.api_version(None, '2.35')
    def show(self, req, snapshot_id):
        context = auth.get_context(req)
        context.can(vol_policies.SNAPSHOTS % 'show')
        try:
            return {'snapshot': _view(self.volume_api.get_snapshot(
                context, snapshot_id))}
        except exception.SnapshotNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())

    @resource.api_version(None, '2.35')
    @validation.schema(schema.create)
    def create(self, req, body):
        context = auth.get_context(req)
        context.can(vol_policies.SNAPSHOTS % 'create')
        values = body['snapshot']
        force = values.get('force', False)
        try:
            force = strutils.bool_from_string(force, strict=True)
        except ValueError:
            raise common.bad_request("Invalid value '%s' for force." % force)
        try:
            snap = self.volume_api.create_snapshot(
                context, values['volume_id'], values.get('display_name'),
                values.get('display_description'), force=force)
        except exception.VolumeNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except exception.InvalidVolume as exc:
            raise common.bad_request(exc.format_message())
        except exception.VolumeLimitExceeded as exc:
            raise webob.exc.HTTPForbidden(explanation=exc.format_message())
        return {'snapshot': _view(snap)}

    @resource.api_version(None, '2.35')
    @resource.response(202)
    def delete(self, req, snapshot_id):
        context = auth.get_context(req)
        context.can(vol_policies.SNAPSHOTS % 'delete')
        try:
            self.volume_api.delete_snapshot(context, snapshot_id)
        except exception.SnapshotNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
