"""The ``createBackup`` server action: a snapshot typed as a backup,
keeping the newest ``rotation`` backups of its type.

202; before 2.45 with a Location header (when rotation keeps the new
backup), from 2.45 with ``{"image_id": ...}``.
"""

from nova_clone.api import common
from nova_clone.api.controllers import create_image
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import create_backup as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import create_backup as policies


class CreateBackupController(object):

    @resource.response(202)
    @resource.action('createBackup')
    @validation.schema(schema.create_backup)
    def create_backup(self, req, server_id, body):
        values = body['createBackup']
        rotation = int(values['rotation'])
        metadata = values.get('metadata', {})
        context, instance = servers.authorized_server(
            req, server_id, policies.CREATE_BACKUP, ['system_metadata'])
        create_image.check_image_metadata(req, context, metadata)
        try:
            image = servers.compute_api().backup(
                context, instance, values['name'].strip(),
                values['backup_type'], rotation,
                extra_properties=metadata)
        except exception.InvalidRequest as exc:
            raise common.bad_request(exc.format_message())
        return create_image.image_response(req, context, image,
                                           with_location=rotation > 0)
