"""Cinder stand-in's attachments API (a mixin of CinderApp).

Microversion 3.27+ for the calls, 3.44 for ``os-complete``: create
(reserved, or attaching when a connector comes along), update with the
host connector (connection_info of driver_volume_type 'file' pointing at
the backing file), complete (volume in-use), delete (volume available
when no attachment is left).
"""

import uuid

from oslo_log import log as logging

from nova_clone.peers import web

LOG = logging.getLogger(__name__)


def invalid_volume(message):
    return web.bad_request('Invalid volume: %s' % message)


class AttachmentsMixin:

    def add_attachment_routes(self, p):
        r = self.route
        r('GET', p + '/attachments', self.list_attachments)
        r('GET', p + '/attachments/detail', self.list_attachments)
        r('POST', p + '/attachments', self.create_attachment)
        r('GET', p + '/attachments/{attachment_id}', self.show_attachment)
        r('PUT', p + '/attachments/{attachment_id}',
          self.update_attachment)
        r('DELETE', p + '/attachments/{attachment_id}',
          self.delete_attachment)
        r('POST', p + '/attachments/{attachment_id}/action',
          self.attachment_action)


    def _attachment(self, req, attachment_id):
        att = self.store.get('cinder_attachments', attachment_id)
        if att is None or not (req.caller.is_admin or
                               att['project_id'] == req.caller.project_id):
            raise web.not_found('VolumeAttachment %s could not be found.'
                                % attachment_id)
        return att

    @staticmethod
    def _attachment_view(att):
        return {'id': att['id'], 'status': att['status'],
                'instance': att['instance'], 'volume_id': att['volume_id'],
                'attached_at': att['attached_at'] or '',
                'detached_at': att['detached_at'] or '',
                'attach_mode': att['attach_mode'],
                'connection_info': att['connection_info']}

    def _connection_info(self, vol, att, connector):
        return {'driver_volume_type': 'file',
                'data': {'device_path': self._path(vol['id']),
                         'access_mode': att['attach_mode'] or 'rw',
                         'volume_id': vol['id'],
                         'attachment_id': att['id'],
                         'encrypted': False, 'discard': False,
                         'qos_specs': None},
                'connector': connector,
                'attachment_id': att['id'], 'volume_id': vol['id'],
                'serial': vol['id']}

    def _check_connector(self, connector):
        if not isinstance(connector, dict):
            raise web.bad_request('Invalid input received: Connector must be '
                                  'a dictionary.')

    def list_attachments(self, req, project_id):
        self._project(req, project_id)
        self._require_version(req, (3, 27))
        if req.caller.is_admin and req.GET.get('all_tenants') in (
                '1', 'true', 'True'):
            atts = self.store.all('cinder_attachments')
        else:
            atts = self.store.all('cinder_attachments', project_id)
        for key, field in (('volume_id', 'volume_id'),
                           ('instance_id', 'instance'),
                           ('status', 'status')):
            if key in req.GET:
                atts = [a for a in atts if a[field] == req.GET[key]]
        if req.path_info.rstrip('/').endswith('/detail'):
            return web.json_response({'attachments': [
                self._attachment_view(a) for a in atts]})
        return web.json_response({'attachments': [
            {'id': a['id'], 'status': a['status'],
             'instance': a['instance'], 'volume_id': a['volume_id']}
            for a in atts]})

    def show_attachment(self, req, project_id, attachment_id):
        self._project(req, project_id)
        self._require_version(req, (3, 27))
        return web.json_response({'attachment': self._attachment_view(
            self._attachment(req, attachment_id))})

    def create_attachment(self, req, project_id):
        self._project(req, project_id)
        self._require_version(req, (3, 27))
        values = self._body(req, 'attachment')
        volume_id = values.get('volume_uuid')
        instance = values.get('instance_uuid')
        if not volume_id:
            raise web.bad_request("Invalid input received: Must specify "
                                  "'volume_uuid' to create attachment.")
        mode = values.get('mode', 'rw')
        if mode not in ('rw', 'ro'):
            raise web.bad_request('Invalid input received: Invalid '
                                  'attachment mode %s.' % mode)
        connector = values.get('connector')
        if connector is not None:
            self._check_connector(connector)
        with self.store.transaction():
            vol = self._volume(req, volume_id)
            others = [a for a in self.store.all('cinder_attachments')
                      if a['volume_id'] == volume_id]
            # A multiattach volume takes more attachments while in use.
            usable = ('available', 'reserved') + (
                ('attaching', 'in-use') if vol['multiattach'] else ())
            if vol['status'] not in usable or (
                    others and not vol['multiattach']):
                if not (others and all(a['instance'] == instance
                                       for a in others)
                        and vol['status'] in ('reserved', 'attaching',
                                              'in-use')):
                    raise invalid_volume(
                        'Volume %s status must be available or downloading '
                        'to reserve, but the current status is %s.'
                        % (volume_id, vol['status']))
            att = {'id': str(uuid.uuid4()), 'volume_id': volume_id,
                   'instance': instance, 'project_id': vol['project_id'],
                   'status': 'reserved', 'attach_mode': mode,
                   'attached_at': None, 'detached_at': None,
                   'connection_info': {}, 'connector': None,
                   'host_name': None, 'mountpoint': None}
            if connector is not None:
                self._apply_connector(vol, att, connector)
            elif vol['status'] == 'available':
                vol['status'] = 'reserved'
            vol['updated_at'] = web.isotime()
            self.store.put('cinder_volumes', vol)
            self.store.add('cinder_attachments', att,
                           project_id=vol['project_id'])
        LOG.info('Attachment %s of volume %s for instance %s created',
                 att['id'], volume_id, instance)
        return web.json_response({'attachment': self._attachment_view(att)})

    def _apply_connector(self, vol, att, connector):
        att['connector'] = connector
        att['host_name'] = connector.get('host')
        att['mountpoint'] = connector.get('mountpoint')
        att['connection_info'] = self._connection_info(vol, att, connector)
        att['status'] = 'attaching'
        if vol['status'] in ('available', 'reserved'):
            vol['status'] = 'attaching'
        vol['attach_status'] = 'attaching'

    def update_attachment(self, req, project_id, attachment_id):
        self._project(req, project_id)
        self._require_version(req, (3, 27))
        values = self._body(req, 'attachment')
        connector = values.get('connector')
        if connector is None:
            raise web.bad_request('Invalid input received: Connector must '
                                  'be specified to update an attachment.')
        self._check_connector(connector)
        with self.store.transaction():
            att = self._attachment(req, attachment_id)
            vol = self.store.get('cinder_volumes', att['volume_id'])
            # One completed without a host (a shelved-offloaded server's)
            # takes the host of the unshelve.
            if att['status'] == 'attached' and att['connector']:
                raise web.bad_request('Invalid input received: Attachment '
                                      '%s is already attached.'
                                      % attachment_id)
            self._apply_connector(vol, att, connector)
            vol['updated_at'] = web.isotime()
            self.store.put('cinder_volumes', vol)
            self.store.put('cinder_attachments', att)
        return web.json_response({'attachment': self._attachment_view(att)})

    def attachment_action(self, req, project_id, attachment_id):
        self._project(req, project_id)
        self._require_version(req, (3, 44))
        body = req.json_body_or_400()
        if not isinstance(body, dict) or 'os-complete' not in body:
            raise web.bad_request('There is no such action: %s'
                                  % (list(body) if isinstance(body, dict)
                                     else body))
        with self.store.transaction():
            att = self._attachment(req, attachment_id)
            vol = self.store.get('cinder_volumes', att['volume_id'])
            # A reserved attachment may complete without a connector: Nova
            # does so for shelved-offloaded servers.
            if att['status'] not in ('attaching', 'reserved'):
                raise invalid_volume('Attachment %s is %s and cannot be '
                                     'completed.'
                                     % (attachment_id, att['status']))
            att['status'] = 'attached'
            att['attached_at'] = web.isotime()
            vol['status'] = 'in-use'
            vol['attach_status'] = 'attached'
            vol['updated_at'] = web.isotime()
            self.store.put('cinder_attachments', att)
            self.store.put('cinder_volumes', vol)
        LOG.info('Attachment %s of volume %s complete', attachment_id,
                 vol['id'])
        return web.empty_response(204)

    def delete_attachment(self, req, project_id, attachment_id):
        self._project(req, project_id)
        self._require_version(req, (3, 27))
        with self.store.transaction():
            att = self._attachment(req, attachment_id)
            self.store.delete('cinder_attachments', attachment_id)
            vol = self.store.get('cinder_volumes', att['volume_id'])
            left = [a for a in self.store.all('cinder_attachments')
                    if a['volume_id'] == att['volume_id']]
            if vol is not None:
                if not left:
                    vol['status'] = 'available'
                    vol['attach_status'] = 'detached'
                elif all(a['status'] != 'attached' for a in left):
                    vol['status'] = 'reserved'
                elif vol['status'] == 'detaching':
                    vol['status'] = 'in-use'  # attached elsewhere still
                vol['updated_at'] = web.isotime()
                self.store.put('cinder_volumes', vol)
        LOG.info('Attachment %s deleted', attachment_id)
        return web.json_response({'attachments': [
            self._attachment_view(a) for a in left]})
