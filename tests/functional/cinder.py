"""The Cinder stand-in and the BDMs as the volume tests read them."""

import time

from nova_clone import context as nova_context
from nova_clone import objects


class Volumes:
    """Volumes and attachments of one user's project in the stand-in."""

    def __init__(self, cloud, api):
        self.api = api
        self.made = []
        self.base = cloud.urls['volumev3'].replace('%(project_id)s',
                                                   api.project_id)

    def request(self, method, path, body=None, expected=None,
                version='3.44'):
        return self.api.request(method, path, body, base=self.base,
                                expected=expected, headers={
                                    'OpenStack-API-Version':
                                        'volume %s' % version})

    def create(self, size=1, **extra):
        body = dict({'size': size}, **extra)
        volume = self.request('POST', '/volumes', {'volume': body},
                              expected=202).json()['volume']
        self.made.append(volume['id'])
        return self.wait(volume['id'], 'available')

    def delete_made(self):
        """Delete the volumes ``create`` made (the project's quota is
        small), once their servers are gone."""
        for volume_id in self.made:
            volume = self.get(volume_id)
            if volume is None:
                continue
            for attachment in self.attachments(volume_id):
                self.request('DELETE', '/attachments/%s' % attachment['id'])
            # Snapshots a failed test left go with their volume.
            self.request('DELETE', '/volumes/%s?cascade=true' % volume_id)

    def get(self, volume_id):
        resp = self.request('GET', '/volumes/%s' % volume_id)
        return resp.json()['volume'] if resp.status_code == 200 else None

    def wait(self, volume_id, status, timeout=20):
        """The volume once in ``status`` (None: once gone)."""
        deadline = time.monotonic() + timeout
        volume = None
        while time.monotonic() < deadline:
            volume = self.get(volume_id)
            if (volume or {}).get('status') == status:
                return volume
            time.sleep(0.05)
        raise AssertionError('volume %s not %s but %s' % (
            volume_id, status, volume and volume['status']))

    def attachments(self, volume_id):
        return self.request('GET', '/attachments/detail?volume_id=%s'
                            % volume_id, expected=200).json()['attachments']


def bdms(server_id):
    """The server's BDMs of volumes, from its cell database."""
    ctxt = nova_context.get_admin_context()
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt, server_id)
    with nova_context.target_cell(ctxt, mapping.cell_mapping) as cctxt:
        return [b for b in objects.BlockDeviceMappingList.
                get_by_instance_uuid(cctxt, server_id)
                if b.destination_type == 'volume']
