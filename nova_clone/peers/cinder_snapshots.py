"""Snapshots of the Cinder stand-in (a mixin of CinderApp).

A snapshot is bookkeeping: it is 'available' at once, has its volume's
size, and keeps the volume from being deleted.  ``force`` allows one of
an in-use volume, as in Cinder.
"""

import uuid

from oslo_utils import strutils

from nova_clone.peers import web

SNAPSHOT_FIELDS = {'volume_id': ((str,), False), 'name': ((str,), True),
                   'description': ((str,), True),
                   'force': ((bool, str), True),
                   'metadata': ((dict,), True)}


class SnapshotsMixin:

    def add_snapshot_routes(self, p):
        r = self.route
        r('GET', p + '/snapshots', self.list_snapshots)
        r('GET', p + '/snapshots/detail', self.list_snapshots)
        r('POST', p + '/snapshots', self.create_snapshot)
        r('GET', p + '/snapshots/{snapshot_id}', self.show_snapshot)
        r('DELETE', p + '/snapshots/{snapshot_id}', self.delete_snapshot)

    def _snapshot(self, req, snapshot_id):
        snap = self.store.get('cinder_snapshots', snapshot_id)
        if snap is None or not (req.caller.is_admin or
                                snap['project_id'] == req.caller.project_id):
            raise web.not_found('Snapshot %s could not be found.'
                                % snapshot_id)
        return snap

    def snapshots_of(self, volume_id):
        return [s for s in self.store.all('cinder_snapshots')
                if s['volume_id'] == volume_id]

    def list_snapshots(self, req, project_id):
        self._project(req, project_id)
        snaps = self.store.all('cinder_snapshots', project_id)
        if req.caller.is_admin and req.GET.get('all_tenants') in (
                '1', 'true', 'True'):
            snaps = self.store.all('cinder_snapshots')
        if 'volume_id' in req.GET:
            snaps = [s for s in snaps if s['volume_id'] == req.GET[
                'volume_id']]
        return web.json_response({'snapshots': snaps})

    def show_snapshot(self, req, project_id, snapshot_id):
        self._project(req, project_id)
        return web.json_response({'snapshot': self._snapshot(
            req, snapshot_id)})

    def create_snapshot(self, req, project_id):
        self._project(req, project_id)
        body = req.json_body_or_400()
        values = body.get('snapshot') if isinstance(body, dict) else None
        if not isinstance(values, dict):
            raise web.bad_request("Missing required element 'snapshot' in "
                                  "request body.")
        web.check_fields(values, SNAPSHOT_FIELDS, lambda k, v: (
            web.bad_request('Invalid input for field/attribute %s. Value: '
                            '%r.' % (k, v))))
        try:
            force = strutils.bool_from_string(values.get('force', False),
                                              strict=True)
        except ValueError:
            raise web.bad_request('Invalid value for force: %s'
                                  % values.get('force'))
        with self.store.transaction():
            vol = self._volume(req, values.get('volume_id') or '')
            if vol['status'] != 'available' and not (
                    force and vol['status'] == 'in-use'):
                raise web.bad_request('Invalid volume: Volume %s status must'
                                      ' be available, but current status '
                                      'is: %s.' % (vol['id'], vol['status']))
            limit = self.quotas['snapshots']
            if limit <= self.store.count('cinder_snapshots',
                                         vol['project_id']):
                raise web.PeerError(413, 'SnapshotLimitExceeded: Maximum '
                                    'number of snapshots allowed (%d) '
                                    'exceeded' % limit)
            snap = {'id': str(uuid.uuid4()), 'volume_id': vol['id'],
                    'status': 'available', 'size': vol['size'],
                    'name': values.get('name'),
                    'description': values.get('description'),
                    'metadata': values.get('metadata') or {},
                    'created_at': web.isotime(), 'updated_at': None,
                    'project_id': vol['project_id']}
            self.store.add('cinder_snapshots', snap,
                           project_id=vol['project_id'])
        return web.json_response({'snapshot': snap}, status=202)

    def delete_snapshot(self, req, project_id, snapshot_id):
        self._project(req, project_id)
        with self.store.transaction():
            self._snapshot(req, snapshot_id)
            self.store.delete('cinder_snapshots', snapshot_id)
        return web.empty_response(202)
