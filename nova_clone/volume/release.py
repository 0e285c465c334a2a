"""What the end of a server does to its volumes, wherever it ends.

The compute's teardown (a delete, a failed build, a reaped guest) and
the API's local delete (no compute to ask) share these steps: the
Cinder attachment of every volume BDM is deleted (the volume becomes
``available``), then the volumes marked ``delete_on_termination`` are
deleted.
"""

from oslo_log import log as logging

from nova_clone import exception

LOG = logging.getLogger(__name__)


def _is_volume(bdm):
    return getattr(bdm, 'destination_type', None) == 'volume'


def release_attachments(volume_api, context, bdms, forget=False,
                        raise_exc=False):
    """Delete the Cinder attachment of every volume BDM.

    ``forget``: the BDM also drops the attachment id (a failed build: the
    next attempt makes its own attachment).  ``raise_exc``: a Cinder
    failure is raised (a detach must not destroy a BDM whose attachment
    is still there) instead of logged.
    """
    for bdm in bdms or []:
        if not _is_volume(bdm) or not bdm.attachment_id:
            continue
        try:
            volume_api.attachment_delete(context, bdm.attachment_id)
        except exception.NotFound:
            pass
        except Exception:
            if raise_exc:
                raise
            LOG.exception('Could not delete attachment %s of volume %s',
                          bdm.attachment_id, bdm.volume_id)
            continue
        if forget:
            bdm.attachment_id = None
            try:
                bdm.save()
            except Exception:
                LOG.debug('Could not save BDM of volume %s', bdm.volume_id,
                          exc_info=True)


def release_volumes(volume_api, context, instance, bdms, raise_exc=True):
    """Delete the volumes marked delete_on_termination."""
    failure = None
    for bdm in bdms or []:
        if not (_is_volume(bdm) and bdm.volume_id and
                bdm.delete_on_termination):
            continue
        try:
            volume_api.delete(context, bdm.volume_id)
            LOG.info('Deleted volume %s of instance %s', bdm.volume_id,
                     instance.uuid)
        except exception.NotFound:
            pass
        except Exception as exc:
            LOG.warning('Failed to delete volume %s of %s: %s',
                        bdm.volume_id, instance.uuid, exc)
            failure = exc
    if failure is not None and raise_exc:
        raise failure
