"""What nova-api knows of a cell that does not answer (microversion 2.69).

Servers and compute hosts of such a cell are still in the API database:
instance mappings (with request specs) and host mappings.  The records
built from them here carry only what those rows hold; ``is_partial``
tells the views to show them as such (status UNKNOWN).
"""

from oslo_log import log as logging

from nova_clone import exception

LOG = logging.getLogger(__name__)

# Set on every record built here, to the uuid of the cell that did not
# answer.  Not a field: it never leaves nova-api.
_DOWN_CELL = '_down_cell_uuid'


def _objects():
    from nova_clone import objects
    return objects


def _partial(record, cell_uuid):
    setattr(record, _DOWN_CELL, cell_uuid)
    return record


def is_partial(record):
    """Whether ``record`` (Instance or Service) was built here rather than
    read from its cell."""
    return getattr(record, _DOWN_CELL, None) is not None


def listed_instances(context, cell_uuids, project_id, limit=None):
    """Minimal Instances (uuid, project_id, created_at) of the servers of
    ``cell_uuids`` that are not queued for delete; of ``project_id``, or
    of every project when it is None.  At most ``limit`` in all."""
    objects = _objects()
    out = []
    for cell_uuid in cell_uuids:
        if limit is not None and len(out) >= limit:
            break
        LOG.warning('Cell %s did not answer the server list; its servers '
                    'are listed from the API database only', cell_uuid)
        mappings = objects.InstanceMappingList.\
            get_not_deleted_by_cell_and_project(
                context, cell_uuid, project_id,
                limit=None if limit is None else limit - len(out))
        for mapping in mappings:
            # No context: nothing may lazy-load from the cell.
            out.append(_partial(objects.Instance(
                uuid=mapping.instance_uuid, project_id=mapping.project_id,
                created_at=mapping.created_at), cell_uuid))
    return out


def shown_instance(context, mapping):
    """A minimal Instance of the server of ``mapping`` from its request
    spec: flavor, image, zone and user besides what lists show.

    InstanceNotFound when the server is queued for delete or its spec is
    gone (archived): for Nova such a server is deleted, not unknown.
    """
    objects = _objects()
    uuid = mapping.instance_uuid
    if mapping.queued_for_delete:
        raise exception.InstanceNotFound(instance_id=uuid)
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(context, uuid)
    except exception.RequestSpecNotFound:
        raise exception.InstanceNotFound(instance_id=uuid)
    cell_uuid = mapping.cell_mapping.uuid
    LOG.warning('Cell %s did not answer; server %s is shown from the API '
                'database only', cell_uuid, uuid)
    image = spec.image if spec.obj_attr_is_set('image') else None
    # A volume-backed server's spec has an image without an id.
    image_ref = image.id if image is not None and 'id' in image else None
    user_id = spec.user_id if spec.obj_attr_is_set('user_id') else None
    return _partial(objects.Instance(
        uuid=uuid, project_id=mapping.project_id,
        user_id=user_id or mapping.user_id,
        created_at=mapping.created_at, power_state=0,
        flavor=spec.flavor, image_ref=image_ref,
        availability_zone=spec.availability_zone,
        # The views read image properties from here (2.98).
        system_metadata={}), cell_uuid)


def compute_services(context, cell):
    """Minimal nova-compute Services (host and binary) of the hosts
    mapped to ``cell``."""
    objects = _objects()
    LOG.warning('Cell %s did not answer; its compute services are listed '
                'from the host mappings only', cell.uuid)
    return [_partial(objects.Service(host=mapping.host,
                                     binary='nova-compute'), cell.uuid)
            for mapping in objects.HostMappingList.get_by_cell_id(
                context, cell.id)]
