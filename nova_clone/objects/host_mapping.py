"""HostMapping: which cell a compute host lives in."""

from nova_clone.db.api import api as api_db_api
from nova_clone.db.api import models as api_models
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import cell_mapping as cell_mapping_obj
from nova_clone.objects import fields


# Every mapping is read together with its cell.
_CELL = ('cell_mapping',)


@base.NovaObjectRegistry.register
class HostMapping(base.NovaTimestampObject, base.NovaObject):
    VERSION = '1.1'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'host': fields.StringField(),
        'cell_mapping': fields.ObjectField('CellMapping'),
    }

    @staticmethod
    def _from_db_object(context, host_mapping, db_host_mapping):
        for key in host_mapping.fields:
            if key == 'cell_mapping':
                continue
            setattr(host_mapping, key, getattr(db_host_mapping, key))
        if db_host_mapping.cell_mapping is not None:
            host_mapping.cell_mapping = (
                cell_mapping_obj.CellMapping._from_db_object(
                    context, cell_mapping_obj.CellMapping(),
                    db_host_mapping.cell_mapping))
        host_mapping.obj_reset_changes()
        host_mapping._context = context
        return host_mapping

    @base.remotable_classmethod
    def get_by_host(cls, context, host):
        db_mapping = api_db_api.get_row(
            context, api_models.HostMapping, {'host': host},
            exception.HostMappingNotFound(name=host), relations=_CELL)
        return cls._from_db_object(context, cls(), db_mapping)

    @base.remotable
    def create(self):
        changes = cell_mapping_obj.changes_with_cell_id(self)
        db_mapping = api_db_api.create_row(
            self._context, api_models.HostMapping, changes,
            duplicate=exception.HostMappingExists(name=changes.get('host')),
            relations=_CELL)
        self._from_db_object(self._context, self, db_mapping)

    @base.remotable
    def save(self):
        changes = cell_mapping_obj.changes_with_cell_id(self)
        db_mapping = api_db_api.update_row(
            self._context, api_models.HostMapping, {'id': self.id}, changes,
            exception.HostMappingNotFound(name=self.host), relations=_CELL)
        self._from_db_object(self._context, self, db_mapping)

    @base.remotable
    def destroy(self):
        api_db_api.delete_row(self._context, api_models.HostMapping,
                              {'id': self.id},
                              exception.HostMappingNotFound(name=self.id))


@base.NovaObjectRegistry.register
class HostMappingList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.1'
    fields = {
        'objects': fields.ListOfObjectsField('HostMapping'),
    }

    @base.remotable_classmethod
    def get_by_cell_id(cls, context, cell_id):
        db_mappings = api_db_api.get_rows(
            context, api_models.HostMapping,
            {'cell_id': cell_id} if cell_id else None, relations=_CELL)
        return base.obj_make_list(context, cls(), HostMapping, db_mappings)

    @base.remotable_classmethod
    def get_all(cls, context):
        db_mappings = api_db_api.get_rows(context, api_models.HostMapping,
                                          relations=_CELL)
        return base.obj_make_list(context, cls(), HostMapping, db_mappings)


# -- discovery ---------------------------------------------------------------

def _cell_db_context(context, cell):
    """A copy of ``context`` aimed at ``cell``'s database only: discovery
    reads tables, it needs no message queue."""
    import copy
    from nova_clone.db.main import api as main_db_api
    cctxt = copy.copy(context)
    cctxt.db_connection = main_db_api.create_context_manager(
        cell.database_connection)
    cctxt.mq_connection = None
    cctxt.cell_uuid = cell.uuid if 'uuid' in cell else None
    return cctxt


def has_compute_hosts(context, cell):
    """True if ``cell``'s database holds any live compute node."""
    from nova_clone.db.main import models as main_models
    cctxt = _cell_db_context(context, cell)
    with cctxt.db_connection.reader.using(cctxt):
        return cctxt.session.query(main_models.ComputeNode.id).filter(
            main_models.ComputeNode.deleted == 0).first() is not None


def _unmapped_compute_hosts(cctxt):
    """Compute nodes of the targeted cell not yet mapped (mapped == 0)."""
    from nova_clone.db.main import api as main_db_api
    from nova_clone.db.main import models as main_models
    manager = main_db_api.get_context_manager(cctxt)
    with manager.reader.using(cctxt):
        rows = cctxt.session.query(
            main_models.ComputeNode.id, main_models.ComputeNode.host).filter(
            main_models.ComputeNode.deleted == 0,
            (main_models.ComputeNode.mapped == 0) |
            main_models.ComputeNode.mapped.is_(None)).all()
    return [(row.id, row.host) for row in rows if row.host]


def _mark_computes_mapped(cctxt, node_ids):
    from nova_clone.db.main import api as main_db_api
    from nova_clone.db.main import models as main_models
    if not node_ids:
        return
    manager = main_db_api.get_context_manager(cctxt)
    with manager.writer.using(cctxt):
        cctxt.session.query(main_models.ComputeNode).filter(
            main_models.ComputeNode.id.in_(node_ids)).update(
            {'mapped': 1}, synchronize_session=False)


def _compute_service_hosts(cctxt):
    from nova_clone.db.main import api as main_db_api
    from nova_clone.db.main import models as main_models
    manager = main_db_api.get_context_manager(cctxt)
    with manager.reader.using(cctxt):
        rows = cctxt.session.query(main_models.Service.host).filter(
            main_models.Service.deleted == 0,
            main_models.Service.binary == 'nova-compute').distinct().all()
    return [row.host for row in rows if row.host]


def _map_host(context, cell, host, status_fn):
    """Create the mapping of ``host`` to ``cell`` unless it exists.

    Returns the new HostMapping, or None when the host was mapped already
    (to this cell; another cell raises HostMappingExists).
    """
    try:
        existing = HostMapping.get_by_host(context, host)
    except exception.HostMappingNotFound:
        existing = None
    if existing is not None:
        if existing.cell_mapping.uuid != cell.uuid:
            raise exception.HostMappingExists(name=host)
        return None
    status_fn("Creating host mapping for compute host '%s': %s"
              % (host, cell.uuid))
    mapping = HostMapping(context, host=host, cell_mapping=cell)
    try:
        mapping.create()
    except exception.HostMappingExists:
        # Another discover run won the race; that is the same result.
        return None
    return mapping


def discover_hosts(context, cell_uuid=None, status_fn=None,
                   by_service=False):
    """Map every unmapped compute host of the cells (or of one cell).

    Looks at compute_nodes (``mapped`` = 0), or with ``by_service`` at the
    nova-compute services, of each enabled cell except cell0, creates the
    host mappings and returns the ones it created.  nova-manage, the
    scheduler's periodic discovery and the deployment tools all call this.
    """
    from nova_clone.objects import cell_mapping as cell_mapping_obj
    status_fn = status_fn or (lambda msg: None)
    if cell_uuid:
        cells = [cell_mapping_obj.CellMapping.get_by_uuid(context,
                                                          cell_uuid)]
    else:
        cells = cell_mapping_obj.CellMappingList.get_by_disabled(
            context, disabled=False)
        status_fn('Found %d cell mappings.' % len(cells))
    created = []
    for cell in cells:
        if cell.is_cell0():
            status_fn('Skipping cell0 since it does not contain hosts.')
            continue
        label = "'%s'" % cell.name if cell.name else ''
        status_fn('Getting computes from cell %s: %s' % (label, cell.uuid))
        cctxt = _cell_db_context(context, cell)
        if by_service:
            hosts = _compute_service_hosts(cctxt)
            for host in hosts:
                mapping = _map_host(context, cell, host, status_fn)
                if mapping is not None:
                    created.append(mapping)
            continue
        nodes = _unmapped_compute_hosts(cctxt)
        status_fn('Found %d unmapped computes in cell: %s'
                  % (len(nodes), cell.uuid))
        seen = {}
        for node_id, host in nodes:
            seen.setdefault(host, []).append(node_id)
        for host, node_ids in seen.items():
            status_fn("Checking host mapping for compute host '%s': %s"
                      % (host, cell.uuid))
            mapping = _map_host(context, cell, host, status_fn)
            if mapping is not None:
                created.append(mapping)
            _mark_computes_mapped(cctxt, node_ids)
    return created
