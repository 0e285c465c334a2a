"""Nova's client of the block storage service (Cinder v3).

Volumes are read, created and deleted; attachments go through Cinder's
attachments API at microversion 3.44 (create, update with the host
connector, complete, delete).  The endpoint comes from ``[cinder]
catalog_info`` (``volumev3::publicURL``) in the catalog, or
``endpoint_override`` with ``%(project_id)s`` filled in.  Calls carry the
user's token; errors become nova_clone.exception classes.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_clone import exception
from nova_clone import client_auth

LOG = logging.getLogger(__name__)

GROUP = 'cinder'
ATTACHMENT_VERSION = '3.44'


def _catalog_info():
    from nova_clone.conf import CONF
    parts = (CONF.cinder.catalog_info or 'volumev3::publicURL').split(':')
    if len(parts) != 3:
        raise exception.InvalidInput(
            reason='[cinder] catalog_info must be service_type:service_name:'
                   'endpoint_type, got %r' % CONF.cinder.catalog_info)
    service_type, service_name, interface = parts
    return service_type, service_name or None, interface.replace('URL', '')


def _translate_volume(vol):
    """Cinder's volume as Nova's code reads it."""
    attachments = {}
    for att in vol.get('attachments') or []:
        attachments[att.get('server_id')] = {
            'attachment_id': att.get('attachment_id'),
            'mountpoint': att.get('device')}
    created = vol.get('created_at')
    if isinstance(created, str):
        created = timeutils.parse_isotime(created).replace(tzinfo=None)
    return {
        'id': vol['id'], 'status': vol.get('status'),
        'size': vol.get('size'),
        'availability_zone': vol.get('availability_zone'),
        'created_at': created,
        'attach_status': 'attached' if attachments else 'detached',
        'display_name': vol.get('name'), 'name': vol.get('name'),
        'display_description': vol.get('description'),
        'volume_type_id': vol.get('volume_type'),
        'snapshot_id': vol.get('snapshot_id'),
        'bootable': str(vol.get('bootable')).lower() == 'true',
        'volume_metadata': vol.get('metadata') or {},
        'volume_image_metadata': vol.get('volume_image_metadata') or {},
        'multiattach': bool(vol.get('multiattach')),
        'attachments': attachments,
        'encrypted': bool(vol.get('encrypted')),
        'shared_targets': vol.get('shared_targets'),
        'service_uuid': vol.get('service_uuid'),
        'user_id': vol.get('user_id'),
        'project_id': vol.get('os-vol-tenant-attr:tenant_id'),
    }


def _translate_attachment(att):
    out = dict(att)
    info = out.get('connection_info') or {}
    if info and 'attachment_id' not in info.get('data', {}):
        info.setdefault('data', {})['attachment_id'] = att['id']
    out['connection_info'] = info
    return out


class API:
    """What Nova asks of Cinder."""

    def _adapter(self, context, admin=False):
        from nova_clone.conf import CONF
        service_type, service_name, interface = _catalog_info()
        overrides = {'service_type': service_type,
                     'interface': [interface]}
        if service_name:
            overrides['service_name'] = service_name
        if CONF.cinder.os_region_name:
            overrides['region_name'] = CONF.cinder.os_region_name
        if CONF.cinder.endpoint_override:
            overrides['endpoint_override'] = (
                CONF.cinder.endpoint_override.replace(
                    '$(project_id)s', '%(project_id)s') %
                {'project_id': getattr(context, 'project_id', '') or ''})
        try:
            return client_auth.get_adapter(GROUP, context, admin=admin,
                                           **overrides)
        except exception.NovaException as exc:
            raise exception.CinderConnectionFailed(reason=str(exc))

    def _call(self, context, method, url, microversion=None, admin=False,
              not_found=None, **kwargs):
        headers = kwargs.pop('headers', {})
        if microversion:
            headers['OpenStack-API-Version'] = 'volume %s' % microversion
        try:
            resp = client_auth.request(self._adapter(context, admin=admin),
                                       method, url, headers=headers,
                                       **kwargs)
        except exception.NovaException as exc:
            raise exception.CinderConnectionFailed(reason=str(exc))
        if resp.status_code < 400:
            return resp.json() if resp.content else None
        message = client_auth.error_message(resp)
        if resp.status_code == 404 and not_found is not None:
            raise not_found
        if resp.status_code == 400:
            # Cinder words its refusals as InvalidVolume does already.
            raise exception.InvalidVolume(reason=message.split(
                'Invalid volume: ', 1)[-1])
        if resp.status_code == 413:
            raise exception.VolumeLimitExceeded(reason=message)
        if resp.status_code in (401, 403):
            raise exception.Forbidden(message)
        if resp.status_code == 404:
            raise exception.NotFound(message)
        raise exception.CinderConnectionFailed(
            reason='%s %s' % (resp.status_code, message))

    # -- volumes -----------------------------------------------------------

    def get(self, context, volume_id, microversion=None):
        body = self._call(context, 'GET', '/volumes/%s' % volume_id,
                          microversion=microversion,
                          not_found=exception.VolumeNotFound(
                              volume_id=volume_id))
        return _translate_volume(body['volume'])

    def get_all(self, context, search_opts=None):
        body = self._call(context, 'GET', '/volumes/detail',
                          params=search_opts or {})
        return [_translate_volume(v) for v in body['volumes']]

    def create(self, context, size, name, description, snapshot=None,
               image_id=None, volume_type=None, metadata=None,
               availability_zone=None):
        body = {'size': size, 'name': name, 'description': description,
                'metadata': metadata or {}}
        if snapshot:
            body['snapshot_id'] = snapshot['id']
        if image_id:
            body['imageRef'] = image_id
        if volume_type:
            body['volume_type'] = volume_type
        if availability_zone:
            body['availability_zone'] = availability_zone
        result = self._call(context, 'POST', '/volumes',
                            json={'volume': body})
        LOG.info('Volume %s of %s GiB requested', result['volume']['id'],
                 size)
        return _translate_volume(result['volume'])

    def delete(self, context, volume_id):
        self._call(context, 'DELETE', '/volumes/%s' % volume_id,
                   not_found=exception.VolumeNotFound(volume_id=volume_id))

    def get_snapshot(self, context, snapshot_id):
        body = self._call(context, 'GET', '/snapshots/%s' % snapshot_id,
                          not_found=exception.SnapshotNotFound(
                              snapshot_id=snapshot_id))
        return body['snapshot']

    def get_all_snapshots(self, context):
        return self._call(context, 'GET', '/snapshots/detail')['snapshots']

    def create_snapshot(self, context, volume_id, name, description,
                        force=False):
        return self._call(context, 'POST', '/snapshots', json={
            'snapshot': {'volume_id': volume_id, 'name': name,
                         'description': description, 'force': force}},
            not_found=exception.VolumeNotFound(volume_id=volume_id)
        )['snapshot']

    def get_absolute_limits(self, context):
        """The project's Cinder limits and usage (maxTotalSnapshots,
        totalSnapshotsUsed...)."""
        return self._call(context, 'GET', '/limits')['limits']['absolute']

    def delete_snapshot(self, context, snapshot_id):
        self._call(context, 'DELETE', '/snapshots/%s' % snapshot_id,
                   not_found=exception.SnapshotNotFound(
                       snapshot_id=snapshot_id))

    def check_availability_zone(self, context, volume, instance=None):
        """Refuse a volume from another zone when cross_az_attach is off."""
        from nova_clone.conf import CONF
        if instance is None or CONF.cinder.cross_az_attach:
            return
        instance_az = getattr(instance, 'availability_zone', None) or \
            getattr(CONF, 'default_availability_zone', None) or 'nova'
        if volume.get('availability_zone') != instance_az:
            raise exception.MismatchVolumeAZException(
                volume_id=volume['id'],
                volume_az=volume.get('availability_zone'),
                instance_az=instance_az)

    # -- attachments (3.44) --------------------------------------------------

    def attachment_create(self, context, volume_id, instance_id,
                          connector=None, mountpoint=None):
        body = {'volume_uuid': volume_id, 'instance_uuid': instance_id}
        if connector is not None:
            connector = dict(connector)
            if mountpoint:
                connector['mountpoint'] = mountpoint
            body['connector'] = connector
        result = self._call(context, 'POST', '/attachments',
                            microversion=ATTACHMENT_VERSION,
                            json={'attachment': body},
                            not_found=exception.VolumeNotFound(
                                volume_id=volume_id))
        LOG.info('Attachment %s of volume %s for instance %s created',
                 result['attachment']['id'], volume_id, instance_id)
        return _translate_attachment(result['attachment'])

    def attachment_get(self, context, attachment_id):
        result = self._call(context, 'GET', '/attachments/%s'
                            % attachment_id, microversion=ATTACHMENT_VERSION,
                            not_found=exception.VolumeAttachmentNotFound(
                                attachment_id=attachment_id))
        return _translate_attachment(result['attachment'])

    def attachment_update(self, context, attachment_id, connector,
                          mountpoint=None):
        connector = dict(connector or {})
        if mountpoint:
            connector['mountpoint'] = mountpoint
        result = self._call(context, 'PUT', '/attachments/%s'
                            % attachment_id, microversion=ATTACHMENT_VERSION,
                            json={'attachment': {'connector': connector}},
                            not_found=exception.VolumeAttachmentNotFound(
                                attachment_id=attachment_id))
        return _translate_attachment(result['attachment'])

    def attachment_complete(self, context, attachment_id):
        self._call(context, 'POST', '/attachments/%s/action'
                   % attachment_id, microversion=ATTACHMENT_VERSION,
                   json={'os-complete': None},
                   not_found=exception.VolumeAttachmentNotFound(
                       attachment_id=attachment_id))

    def begin_detaching(self, context, volume_id):
        """The volume shows ``detaching`` until the compute is done
        (InvalidVolume when it is not in use)."""
        self._volume_action(context, volume_id, 'os-begin_detaching')

    def roll_detaching(self, context, volume_id):
        """Back to ``in-use``: the detach did not happen."""
        self._volume_action(context, volume_id, 'os-roll_detaching')

    def _volume_action(self, context, volume_id, action):
        self._call(context, 'POST', '/volumes/%s/action' % volume_id,
                   json={action: None},
                   not_found=exception.VolumeNotFound(volume_id=volume_id))

    def attachment_delete(self, context, attachment_id):
        self._call(context, 'DELETE', '/attachments/%s' % attachment_id,
                   microversion=ATTACHMENT_VERSION,
                   not_found=exception.VolumeAttachmentNotFound(
                       attachment_id=attachment_id))
        LOG.info('Attachment %s deleted', attachment_id)
