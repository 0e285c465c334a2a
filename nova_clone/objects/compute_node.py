"""ComputeNode: the resources of one hypervisor node of a compute host.

The resource tracker of nova-compute writes it; the scheduler's host
manager and the hypervisors API read it.
"""

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_clone.db.main import api as main_db_api
from nova_clone.db.main import models
from nova_clone.db.main import queries
from nova_clone import exception
from nova_clone.objects import base
from nova_clone.objects import fields

# Columns holding JSON the object exposes decoded.
_JSON_DICT_FIELDS = ('stats',)


@main_db_api.pick_context_manager_reader
def _get_many(context, filters=None, in_filters=None, like=None,
              limit=None, marker=None, read_deleted=None,
              mapped_less_than=None):
    query = queries.model_query(context, models.ComputeNode,
                                read_deleted=read_deleted)
    if mapped_less_than is not None:
        query = query.filter(sa.or_(
            models.ComputeNode.mapped < mapped_less_than,
            models.ComputeNode.mapped.is_(None)))
    for key, value in (filters or {}).items():
        query = query.filter(getattr(models.ComputeNode, key) == value)
    for key, values in (in_filters or {}).items():
        query = query.filter(getattr(models.ComputeNode, key).in_(values))
    for key, pattern in (like or {}).items():
        query = query.filter(getattr(models.ComputeNode, key).like(pattern))
    query = query.order_by(models.ComputeNode.id)
    if marker is not None:
        marker_row = queries.model_query(
            context, models.ComputeNode).filter_by(id=marker).first()
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
        query = query.filter(models.ComputeNode.id > marker_row.id)
    if limit is not None:
        query = query.limit(limit)
    return query.all()


@base.NovaObjectRegistry.register
class HVSpec(base.NovaObject):
    """One (architecture, hypervisor type, vm mode) a node can run."""
    VERSION = '1.2'

    fields = {
        'arch': fields.StringField(),
        'hv_type': fields.StringField(),
        'vm_mode': fields.StringField(),
    }

    @classmethod
    def from_list(cls, triple):
        return cls(arch=triple[0], hv_type=triple[1], vm_mode=triple[2])

    def to_list(self):
        return [self.arch, self.hv_type, self.vm_mode]


@base.NovaObjectRegistry.register
class ComputeNode(base.NovaPersistentObject, base.NovaObject):
    VERSION = '1.19'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'uuid': fields.UUIDField(read_only=True),
        'service_id': fields.IntegerField(nullable=True),
        'host': fields.StringField(nullable=True),
        'vcpus': fields.IntegerField(),
        'memory_mb': fields.IntegerField(),
        'local_gb': fields.IntegerField(),
        'vcpus_used': fields.IntegerField(),
        'memory_mb_used': fields.IntegerField(),
        'local_gb_used': fields.IntegerField(),
        'hypervisor_type': fields.StringField(),
        'hypervisor_version': fields.IntegerField(),
        'hypervisor_hostname': fields.StringField(nullable=True),
        'free_ram_mb': fields.IntegerField(nullable=True),
        'free_disk_gb': fields.IntegerField(nullable=True),
        'current_workload': fields.IntegerField(nullable=True),
        'running_vms': fields.IntegerField(nullable=True),
        'cpu_info': fields.StringField(nullable=True),
        'disk_available_least': fields.IntegerField(nullable=True),
        'metrics': fields.StringField(nullable=True),
        'stats': fields.DictOfNullableStringsField(nullable=True),
        'host_ip': fields.IPAddressField(nullable=True),
        'numa_topology': fields.StringField(nullable=True),
        'supported_hv_specs': fields.ListOfObjectsField('HVSpec'),
        'pci_device_pools': fields.StringField(nullable=True),
        'cpu_allocation_ratio': fields.FloatField(),
        'ram_allocation_ratio': fields.FloatField(),
        'disk_allocation_ratio': fields.FloatField(),
        'mapped': fields.IntegerField(),
    }

    @staticmethod
    def _from_db_object(context, node, row):
        for name in node.fields:
            if name == 'supported_hv_specs':
                specs = jsonutils.loads(row.supported_instances or '[]')
                node.supported_hv_specs = [HVSpec.from_list(s)
                                           for s in specs]
                continue
            if name == 'pci_device_pools':
                node.pci_device_pools = row.pci_stats
                continue
            value = getattr(row, name)
            if name == 'stats':
                value = jsonutils.loads(value) if value else {}
                value = {k: (None if v is None else str(v))
                         for k, v in value.items()}
            elif name == 'uuid' and value is None:
                continue
            elif name == 'deleted':
                value = bool(value)
            elif name == 'mapped':
                value = value or 0
            elif name.endswith('_allocation_ratio') and value is None:
                value = 0.0
            elif name == 'host_ip' and value is not None:
                value = str(value)
            setattr(node, name, value)
        node._context = context
        node.obj_reset_changes()
        return node

    def _db_values(self, updates):
        values = dict(updates)
        if 'supported_hv_specs' in values:
            values['supported_instances'] = jsonutils.dumps(
                [s.to_list() for s in values.pop('supported_hv_specs')])
        if 'pci_device_pools' in values:
            values['pci_stats'] = values.pop('pci_device_pools')
        if 'stats' in values:
            values['stats'] = jsonutils.dumps(values['stats'] or {})
        if values.get('host_ip') is not None:
            values['host_ip'] = str(values['host_ip'])
        return queries.naive_datetimes(values)

    def obj_load_attr(self, attrname):
        if attrname == 'mapped':
            self.mapped = 0
        elif attrname == 'supported_hv_specs':
            self.supported_hv_specs = []
        elif attrname.endswith('_allocation_ratio'):
            setattr(self, attrname, 0.0)
        else:
            raise exception.ObjectActionError(
                action='obj_load_attr',
                reason='%s cannot be loaded' % attrname)
        self.obj_reset_changes([attrname])

    @classmethod
    def _get(cls, context, filters, not_found):
        row = queries.get_row(context, models.ComputeNode, filters,
                              order_by=models.ComputeNode.id,
                              not_found=not_found)
        return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def get_by_id(cls, context, compute_id):
        return cls._get(context, {'id': compute_id},
                        exception.ComputeHostNotFound(host=compute_id))

    @base.remotable_classmethod
    def get_by_uuid(cls, context, compute_uuid):
        return cls._get(context, {'uuid': compute_uuid},
                        exception.ComputeHostNotFound(host=compute_uuid))

    @base.remotable_classmethod
    def get_by_service_id(cls, context, service_id):
        return cls._get(context, {'service_id': service_id},
                        exception.ComputeHostNotFound(host=service_id))

    @base.remotable_classmethod
    def get_by_host_and_nodename(cls, context, host, nodename):
        return cls._get(context,
                        {'host': host, 'hypervisor_hostname': nodename},
                        exception.ComputeHostNotFound(host=host))

    @base.remotable_classmethod
    def get_by_nodename(cls, context, hypervisor_hostname):
        return cls._get(context,
                        {'hypervisor_hostname': hypervisor_hostname},
                        exception.ComputeHostNotFoundByHostname(
                            hypervisor_hostname=hypervisor_hostname))

    # Nova's name for the same lookup.
    get_by_hypervisor_hostname = get_by_nodename

    @base.remotable_classmethod
    def get_first_node_by_host_for_old_compat(cls, context, host,
                                              use_slave=False):
        return cls._get(context, {'host': host},
                        exception.ComputeHostNotFound(host=host))

    @base.remotable
    def create(self):
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(action='create',
                                              reason='already created')
        updates = self.obj_get_changes()
        updates.setdefault('uuid', uuidutils.generate_uuid())
        row = queries.create_row_core(
            self._context, models.ComputeNode, self._db_values(updates),
            duplicate=exception.DuplicateRecord(target=updates['uuid']))
        self._from_db_object(self._context, self, row)

    @base.remotable
    def save(self, prune_stats=False):
        updates = self.obj_get_changes()
        updates.pop('id', None)
        updates.pop('uuid', None)
        if not updates:
            return
        row = queries.update_row_core(
            self._context, models.ComputeNode, self.id,
            self._db_values(updates),
            exception.ComputeHostNotFound(host=self.id))
        self._from_db_object(self._context, self, row)

    @base.remotable
    def destroy(self):
        filters = {'id': self.id}
        if 'host' in self and self.host is not None:
            # Leave the row alone if another host has taken it over.
            filters['host'] = self.host
        queries.soft_delete_row(self._context, models.ComputeNode, filters,
                                exception.ComputeHostNotFound(host=self.id))

    def update_from_virt_driver(self, resources):
        """Copy what the virt driver reports onto this node."""
        for key in ('vcpus', 'memory_mb', 'local_gb', 'cpu_info',
                    'vcpus_used', 'memory_mb_used', 'local_gb_used',
                    'numa_topology', 'hypervisor_type', 'hypervisor_version',
                    'hypervisor_hostname', 'disk_available_least',
                    'host_ip', 'uuid'):
            if key in resources:
                if key == 'uuid' and 'uuid' in self:
                    continue
                setattr(self, key, resources[key])
        if 'supported_instances' in resources:
            self.supported_hv_specs = [
                HVSpec.from_list(s) for s in resources['supported_instances']]


@base.NovaObjectRegistry.register
class ComputeNodeList(base.ObjectListBase, base.NovaObject):
    VERSION = '1.17'

    fields = {
        'objects': fields.ListOfObjectsField('ComputeNode'),
    }

    @classmethod
    def _make(cls, context, rows):
        return base.obj_make_list(context, cls(context), ComputeNode, rows)

    @base.remotable_classmethod
    def get_all(cls, context):
        return cls._make(context, _get_many(context))

    @base.remotable_classmethod
    def get_all_by_uuids(cls, context, compute_uuids):
        return cls._make(context, _get_many(
            context, in_filters={'uuid': list(compute_uuids)}))

    @base.remotable_classmethod
    def get_by_pagination(cls, context, limit=None, marker=None):
        return cls._make(context, _get_many(context, limit=limit,
                                            marker=marker))

    @base.remotable_classmethod
    def get_by_hypervisor(cls, context, hypervisor_match):
        pattern = '%' + hypervisor_match.replace('%', r'\%') + '%'
        return cls._make(context, _get_many(
            context, like={'hypervisor_hostname': pattern}))

    @base.remotable_classmethod
    def get_by_hypervisor_type(cls, context, hv_type):
        return cls._make(context, _get_many(
            context, filters={'hypervisor_type': hv_type}))

    @base.remotable_classmethod
    def get_by_hypervisor_hostnames(cls, context, hypervisor_hostnames):
        return cls._make(context, _get_many(
            context, in_filters={'hypervisor_hostname':
                                 list(hypervisor_hostnames)}))

    @base.remotable_classmethod
    def get_all_by_host(cls, context, host, use_slave=False):
        rows = _get_many(context, filters={'host': host})
        if not rows:
            raise exception.ComputeHostNotFound(host=host)
        return cls._make(context, rows)

    @base.remotable_classmethod
    def get_all_by_not_mapped(cls, context, mapped_less_than):
        return cls._make(context, _get_many(
            context, mapped_less_than=mapped_less_than))
