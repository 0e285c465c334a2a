"""/os-assisted-volume-snapshots: Cinder drivers that keep volumes as
files ask the compute of the server a volume is attached to to snapshot
(or drop a snapshot of) its disk.  Casts; Nova answers problems with 400
(no attachment, no host, a task in progress)."""

from oslo_serialization import jsonutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import assisted_volume_snapshots as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import assisted_volume_snapshots as avs_policies

_REFUSALS = (exception.VolumeBDMNotFound, exception.VolumeBDMIsMultiAttach,
             exception.InvalidVolume, exception.InstanceInvalidState,
             exception.InstanceNotReady)


class AssistedVolumeSnapshotsController(object):

    @validation.schema(schema.snapshots_create)
    def create(self, req, body):
        context = auth.get_context(req)
        context.can(avs_policies.AVS % 'create', target={})
        snapshot = body['snapshot']
        try:
            return servers.compute_api().volume_snapshot_create(
                context, snapshot['volume_id'], snapshot['create_info'])
        except _REFUSALS + (exception.VolumeNotFound,) as exc:
            raise common.bad_request(exc.format_message())

    @resource.response(204)
    @validation.query_schema(schema.delete_query_v275, '2.75')
    @validation.query_schema(schema.delete_query, '2.1', '2.74')
    def delete(self, req, snapshot_id):
        context = auth.get_context(req)
        context.can(avs_policies.AVS % 'delete', target={})
        try:
            delete_info = jsonutils.loads(req.GET['delete_info'])
            volume_id = delete_info['volume_id']
        except (KeyError, ValueError, TypeError) as exc:
            raise common.bad_request(str(exc))
        try:
            servers.compute_api().volume_snapshot_delete(
                context, volume_id, snapshot_id, delete_info)
        except _REFUSALS as exc:
            raise common.bad_request(exc.format_message())
        except exception.NotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
