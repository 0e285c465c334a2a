"""snapshot_instance and backup_instance: the guest's disk into Glance.

The API made the image record (queued) and set the task: image_snapshot
or image_backup.  Here a snapshot goes to image_snapshot_pending, the
driver moves it through image_pending_upload and image_uploading (its
``update_task_state``) and uploads the disk into the image; the task then
clears.  The server's vm_state never changes.  A backup then deletes the
oldest backups of its type beyond ``rotation``.

On failure the task clears, the image is deleted unless already active,
and the RPC method records the fault; a server deleted meanwhile just
loses the half-made image.

A volume-backed server is snapshotted by the API through Cinder; this
host only freezes the guest's filesystems meanwhile (quiesce_instance,
a call) and thaws them once the snapshots are taken (unquiesce_instance).
"""

import time

from oslo_log import log as logging
from oslo_utils import excutils

from nova_clone.compute.host import build
from nova_clone.compute import task_states
from nova_clone.compute import utils as compute_utils
from nova_clone import exception

LOG = logging.getLogger(__name__)

_VANISHED = (exception.InstanceNotFound,
             exception.UnexpectedDeletingTaskStateError)

def snapshot_instance(collab, context, image_id, instance):
    """createImage: the disk of ``instance`` into image ``image_id``."""
    try:
        instance.task_state = task_states.IMAGE_SNAPSHOT_PENDING
        instance.save(expected_task_state=task_states.IMAGE_SNAPSHOT)
    except _VANISHED:
        LOG.debug('Instance %s went away before its snapshot',
                  instance.uuid)
        _discard_image(collab, context, image_id)
        return
    _take(collab, context, image_id, instance,
          task_states.IMAGE_SNAPSHOT_PENDING)


def backup_instance(collab, context, image_id, instance, backup_type,
                    rotation):
    """createBackup: a snapshot, then the rotation of its backup type."""
    if _take(collab, context, image_id, instance, task_states.IMAGE_BACKUP):
        rotate_backups(collab, context, instance, backup_type, rotation)


def _take(collab, context, image_id, instance, expected_task_state):
    """True once the image is uploaded and the task cleared."""
    try:
        _upload(collab, context, image_id, instance, expected_task_state)
        return True
    except _VANISHED:
        LOG.info('Instance %s disappeared during its snapshot',
                 instance.uuid)
        _discard_image(collab, context, image_id)
        return False
    except exception.ImageNotFound:
        # Someone deleted the image: nothing to upload to.
        LOG.warning('Image %s went away during the snapshot of %s',
                    image_id, instance.uuid)
        _clear_task(instance)
        return False
    except Exception as exc:
        with excutils.save_and_reraise_exception():
            LOG.exception('Snapshot of %s failed', instance.uuid)
            compute_utils.notify_about_instance_action(
                context, instance, collab.host, 'snapshot',
                phase='error', exception=exc)
            _discard_image(collab, context, image_id)
            _clear_task(instance)


def _upload(collab, context, image_id, instance, expected_task_state):
    instance.power_state = build.get_power_state(collab.driver, instance)
    instance.save()
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'snapshot', phase='start')

    def update_task_state(task_state, expected_state=expected_task_state):
        instance.task_state = task_state
        instance.save(expected_task_state=expected_state)

    collab.driver.snapshot(context, instance, image_id, update_task_state)
    instance.task_state = None
    instance.save(expected_task_state=task_states.IMAGE_UPLOADING)
    compute_utils.notify_about_instance_action(
        context, instance, collab.host, 'snapshot', phase='end')


def rotate_backups(collab, context, instance, backup_type, rotation):
    """Delete this server's backups of ``backup_type`` beyond the newest
    ``rotation``."""
    images = collab.image_api.get_all(
        context, filters={'image_type': 'backup',
                          'backup_type': backup_type,
                          'instance_uuid': instance.uuid},
        sort_key='created_at', sort_dir='desc')
    for image in images[rotation:]:
        LOG.info('Rotating out backup %s of instance %s', image['id'],
                 instance.uuid)
        try:
            collab.image_api.delete(context, image['id'])
        except exception.ImageNotFound:
            pass


def _discard_image(collab, context, image_id):
    """Delete a snapshot that did not finish (an active one stays)."""
    try:
        image = collab.image_api.get(context, image_id)
        if image.get('status') != 'active':
            collab.image_api.delete(context, image_id)
    except exception.ImageNotFound:
        pass
    except Exception:
        LOG.warning('Could not clean up image %s', image_id, exc_info=True)


def _clear_task(instance):
    try:
        instance.task_state = None
        instance.save()
    except exception.InstanceNotFound:
        pass


# How long unquiesce waits for Cinder to finish the snapshots it maps.
SNAPSHOT_WAIT_SECONDS = 60


def quiesce_instance(collab, context, instance):
    collab.driver.quiesce(context, instance,
                          compute_utils._objects().ImageMeta.from_instance(instance))
    LOG.info('Filesystems of %s frozen for a volume snapshot',
             instance.uuid)


def unquiesce_instance(collab, context, instance, mapping=None):
    """Thaw the guest once none of the snapshots of ``mapping`` (an image
    block_device_mapping) is still being created, or after
    SNAPSHOT_WAIT_SECONDS."""
    pending = [m['snapshot_id'] for m in mapping or []
               if m.get('source_type') == 'snapshot']
    deadline = time.monotonic() + SNAPSHOT_WAIT_SECONDS
    while pending and time.monotonic() < deadline:
        try:
            pending = [s for s in pending
                       if collab.volume_api.get_snapshot(
                           context, s).get('status') == 'creating']
        except Exception:
            LOG.exception('Could not follow the snapshots of %s; thawing '
                          'it now', instance.uuid)
            break
        if pending:
            time.sleep(0.5)
    collab.driver.unquiesce(context, instance,
                            compute_utils._objects().ImageMeta.from_instance(instance))
    LOG.info('Filesystems of %s thawed', instance.uuid)
