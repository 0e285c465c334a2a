"""Tables of a cell database (cell0 and cell1..N share one schema).

Soft-deleted tables carry ``deleted_at`` and ``deleted`` (0 while live, the
row's id once deleted), so unique keys that include ``deleted`` let a name
be reused after deletion.
"""

from oslo_db.sqlalchemy import models
import sqlalchemy as sa
from sqlalchemy import orm

from nova_clone.db import types

BASE = orm.declarative_base()


class NovaBase(models.TimestampMixin, models.ModelBase):
    """created_at/updated_at on every cell table except tags."""


SD = models.SoftDeleteMixin


def _args(*items):
    return tuple(items) + (types.TABLE_ARGS,)


class Service(BASE, NovaBase, SD):
    __tablename__ = 'services'
    __table_args__ = _args(
        sa.UniqueConstraint('host', 'topic', 'deleted',
                            name='uniq_services0host0topic0deleted'),
        sa.UniqueConstraint('host', 'binary', 'deleted',
                            name='uniq_services0host0binary0deleted'),
        sa.Index('services_uuid_idx', 'uuid', unique=True),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=True)
    host = sa.Column(sa.String(255))
    binary = sa.Column(sa.String(255))
    topic = sa.Column(sa.String(255))
    report_count = sa.Column(sa.Integer, nullable=False, default=0)
    disabled = sa.Column(sa.Boolean, default=False)
    disabled_reason = sa.Column(sa.String(255))
    last_seen_up = sa.Column(sa.DateTime, nullable=True)
    forced_down = sa.Column(sa.Boolean, default=False)
    version = sa.Column(sa.Integer, default=0)


class ComputeNode(BASE, NovaBase, SD):
    __tablename__ = 'compute_nodes'
    __table_args__ = _args(
        sa.Index('compute_nodes_uuid_idx', 'uuid', unique=True),
        sa.UniqueConstraint(
            'host', 'hypervisor_hostname', 'deleted',
            name='uniq_compute_nodes0host0hypervisor_hostname0deleted'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    service_id = sa.Column(sa.Integer, nullable=True)
    host = sa.Column(sa.String(255), nullable=True)
    uuid = sa.Column(sa.String(36), nullable=True)
    vcpus = sa.Column(sa.Integer, nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    local_gb = sa.Column(sa.Integer, nullable=False)
    vcpus_used = sa.Column(sa.Integer, nullable=False)
    memory_mb_used = sa.Column(sa.Integer, nullable=False)
    local_gb_used = sa.Column(sa.Integer, nullable=False)
    hypervisor_type = sa.Column(types.MediumText(), nullable=False)
    hypervisor_version = sa.Column(sa.Integer, nullable=False)
    hypervisor_hostname = sa.Column(sa.String(255))
    free_ram_mb = sa.Column(sa.Integer)
    free_disk_gb = sa.Column(sa.Integer)
    current_workload = sa.Column(sa.Integer)
    running_vms = sa.Column(sa.Integer)
    cpu_info = sa.Column(types.MediumText(), nullable=False)
    disk_available_least = sa.Column(sa.Integer)
    host_ip = sa.Column(types.IPAddress())
    supported_instances = sa.Column(sa.Text)
    metrics = sa.Column(sa.Text)
    pci_stats = sa.Column(sa.Text)
    extra_resources = sa.Column(sa.Text)
    stats = sa.Column(sa.Text, default='{}')
    numa_topology = sa.Column(sa.Text)
    ram_allocation_ratio = sa.Column(sa.Float, nullable=True)
    cpu_allocation_ratio = sa.Column(sa.Float, nullable=True)
    disk_allocation_ratio = sa.Column(sa.Float, nullable=True)
    mapped = sa.Column(sa.Integer, nullable=True, default=0)


class Instance(BASE, NovaBase, SD):
    __tablename__ = 'instances'
    __table_args__ = _args(
        sa.Index('instances_project_id_idx', 'project_id'),
        sa.Index('instances_project_id_deleted_idx',
                 'project_id', 'deleted'),
        sa.Index('instances_reservation_id_idx', 'reservation_id'),
        sa.Index('instances_terminated_at_launched_at_idx',
                 'terminated_at', 'launched_at'),
        sa.Index('instances_uuid_deleted_idx', 'uuid', 'deleted'),
        sa.Index('instances_task_state_updated_at_idx',
                 'task_state', 'updated_at'),
        sa.Index('instances_host_node_deleted_idx',
                 'host', 'node', 'deleted'),
        sa.Index('instances_host_deleted_cleaned_idx',
                 'host', 'deleted', 'cleaned'),
        sa.Index('instances_deleted_created_at_idx',
                 'deleted', 'created_at'),
        sa.Index('instances_updated_at_project_id_idx',
                 'updated_at', 'project_id'),
        sa.Index('instances_compute_id_deleted_idx',
                 'compute_id', 'deleted'),
        sa.UniqueConstraint('uuid', name='uniq_instances0uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)

    @property
    def name(self):
        # The hypervisor-side name; built from the template on demand.
        from nova_clone.conf import CONF
        try:
            return CONF.instance_name_template % self.id
        except (TypeError, KeyError, ValueError):
            return 'instance-%08x' % (self.id or 0)

    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    image_ref = sa.Column(sa.String(255))
    kernel_id = sa.Column(sa.String(255))
    ramdisk_id = sa.Column(sa.String(255))
    hostname = sa.Column(sa.String(255))
    launch_index = sa.Column(sa.Integer)
    key_name = sa.Column(sa.String(255))
    key_data = sa.Column(types.MediumText())
    power_state = sa.Column(sa.Integer)
    vm_state = sa.Column(sa.String(255))
    task_state = sa.Column(sa.String(255))
    memory_mb = sa.Column(sa.Integer)
    vcpus = sa.Column(sa.Integer)
    root_gb = sa.Column(sa.Integer)
    ephemeral_gb = sa.Column(sa.Integer)
    ephemeral_key_uuid = sa.Column(sa.String(36))
    host = sa.Column(sa.String(255))
    node = sa.Column(sa.String(255))
    compute_id = sa.Column(sa.BigInteger, nullable=True)
    instance_type_id = sa.Column(sa.Integer)
    user_data = sa.Column(types.MediumText())
    reservation_id = sa.Column(sa.String(255))
    launched_at = sa.Column(sa.DateTime)
    terminated_at = sa.Column(sa.DateTime)
    availability_zone = sa.Column(sa.String(255))
    display_name = sa.Column(sa.String(255))
    display_description = sa.Column(sa.String(255))
    launched_on = sa.Column(types.MediumText())
    locked = sa.Column(sa.Boolean)
    locked_by = sa.Column(
        sa.Enum('owner', 'admin', name='instances0locked_by'))
    os_type = sa.Column(sa.String(255))
    architecture = sa.Column(sa.String(255))
    vm_mode = sa.Column(sa.String(255))
    uuid = sa.Column(sa.String(36), nullable=False)
    root_device_name = sa.Column(sa.String(255))
    default_ephemeral_device = sa.Column(sa.String(255))
    default_swap_device = sa.Column(sa.String(255))
    config_drive = sa.Column(sa.String(255))
    access_ip_v4 = sa.Column(types.IPAddress())
    access_ip_v6 = sa.Column(types.IPAddress())
    auto_disk_config = sa.Column(sa.Boolean())
    progress = sa.Column(sa.Integer)
    shutdown_terminate = sa.Column(sa.Boolean(), default=False)
    disable_terminate = sa.Column(sa.Boolean(), default=False)
    cell_name = sa.Column(sa.String(255))
    cleaned = sa.Column(sa.Integer, default=0)
    hidden = sa.Column(sa.Boolean, default=False)

    tags = orm.relationship(
        'Tag', primaryjoin='Instance.uuid == foreign(Tag.resource_id)',
        viewonly=True)


class InstanceExtra(BASE, NovaBase, SD):
    __tablename__ = 'instance_extra'
    __table_args__ = _args(
        sa.Index('instance_extra_idx', 'instance_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'),
                              nullable=False)
    # Large blobs, loaded only when asked for.
    device_metadata = orm.deferred(sa.Column(sa.Text))
    numa_topology = orm.deferred(sa.Column(sa.Text))
    pci_requests = orm.deferred(sa.Column(sa.Text))
    flavor = orm.deferred(sa.Column(sa.Text))
    vcpu_model = orm.deferred(sa.Column(sa.Text))
    migration_context = orm.deferred(sa.Column(sa.Text))
    keypairs = orm.deferred(sa.Column(sa.Text))
    trusted_certs = orm.deferred(sa.Column(sa.Text))
    resources = orm.deferred(sa.Column(sa.Text))

    instance = orm.relationship(
        Instance, backref=orm.backref('extra', uselist=False),
        foreign_keys=instance_uuid,
        primaryjoin=instance_uuid == Instance.uuid)


class InstanceInfoCache(BASE, NovaBase, SD):
    __tablename__ = 'instance_info_caches'
    __table_args__ = _args(
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_instance_info_caches0instance_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    network_info = sa.Column(types.MediumText())
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'),
                              nullable=False)

    instance = orm.relationship(
        Instance, backref=orm.backref('info_cache', uselist=False),
        foreign_keys=instance_uuid,
        primaryjoin=instance_uuid == Instance.uuid)


class InstanceMetadata(BASE, NovaBase, SD):
    __tablename__ = 'instance_metadata'
    __table_args__ = _args(
        sa.Index('instance_metadata_instance_uuid_idx', 'instance_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    key = sa.Column(sa.String(255))
    value = sa.Column(sa.String(255))
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'))

    instance = orm.relationship(
        Instance, backref='metadata', foreign_keys=instance_uuid,
        primaryjoin=('and_(InstanceMetadata.instance_uuid == '
                     'Instance.uuid, InstanceMetadata.deleted == 0)'))


class InstanceSystemMetadata(BASE, NovaBase, SD):
    __tablename__ = 'instance_system_metadata'
    __table_args__ = _args(
        sa.Index('instance_uuid', 'instance_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255))
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'),
                              nullable=False)

    instance = orm.relationship(
        Instance, backref='system_metadata', foreign_keys=instance_uuid,
        primaryjoin=('and_(InstanceSystemMetadata.instance_uuid == '
                     'Instance.uuid, InstanceSystemMetadata.deleted == 0)'))


class InstanceFault(BASE, NovaBase, SD):
    __tablename__ = 'instance_faults'
    __table_args__ = _args(
        sa.Index('instance_faults_host_idx', 'host'),
        sa.Index('instance_faults_instance_uuid_deleted_created_at_idx',
                 'instance_uuid', 'deleted', 'created_at'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'))
    code = sa.Column(sa.Integer(), nullable=False)
    message = sa.Column(sa.String(255))
    details = sa.Column(types.MediumText())
    host = sa.Column(sa.String(255))


class InstanceAction(BASE, NovaBase, SD):
    __tablename__ = 'instance_actions'
    __table_args__ = _args(
        sa.Index('instance_uuid_idx', 'instance_uuid'),
        sa.Index('request_id_idx', 'request_id'),
        sa.Index('instance_actions_instance_uuid_updated_at_idx',
                 'instance_uuid', 'updated_at'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False,
                   autoincrement=True)
    action = sa.Column(sa.String(255))
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'))
    request_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    start_time = sa.Column(sa.DateTime)
    finish_time = sa.Column(sa.DateTime)
    message = sa.Column(sa.String(255))


class InstanceActionEvent(BASE, NovaBase, SD):
    __tablename__ = 'instance_actions_events'
    __table_args__ = (types.TABLE_ARGS,)

    id = sa.Column(sa.Integer, primary_key=True, nullable=False,
                   autoincrement=True)
    event = sa.Column(sa.String(255))
    action_id = sa.Column(sa.Integer, sa.ForeignKey('instance_actions.id'))
    start_time = sa.Column(sa.DateTime)
    finish_time = sa.Column(sa.DateTime)
    result = sa.Column(sa.String(255))
    traceback = sa.Column(sa.Text)
    host = sa.Column(sa.String(255))
    details = sa.Column(sa.Text)


class InstanceIdMapping(BASE, NovaBase, SD):
    __tablename__ = 'instance_id_mappings'
    __table_args__ = _args(
        sa.Index('ix_instance_id_mappings_uuid', 'uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False,
                   autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False)


class BlockDeviceMapping(BASE, NovaBase, SD):
    __tablename__ = 'block_device_mapping'
    __table_args__ = _args(
        sa.Index('snapshot_id', 'snapshot_id'),
        sa.Index('volume_id', 'volume_id'),
        sa.Index('block_device_mapping_instance_uuid_idx', 'instance_uuid'),
        sa.Index('block_device_mapping_instance_uuid_device_name_idx',
                 'instance_uuid', 'device_name'),
        sa.Index('block_device_mapping_instance_uuid_volume_id_idx',
                 'instance_uuid', 'volume_id'),
        sa.UniqueConstraint('uuid', name='uniq_block_device_mapping0uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'))
    uuid = sa.Column(sa.String(36), nullable=True)
    source_type = sa.Column(sa.String(255))
    destination_type = sa.Column(sa.String(255))
    guest_format = sa.Column(sa.String(255))
    device_type = sa.Column(sa.String(255))
    disk_bus = sa.Column(sa.String(255))
    boot_index = sa.Column(sa.Integer)
    device_name = sa.Column(sa.String(255))
    delete_on_termination = sa.Column(sa.Boolean, default=False)
    snapshot_id = sa.Column(sa.String(36))
    volume_id = sa.Column(sa.String(36))
    volume_size = sa.Column(sa.Integer)
    volume_type = sa.Column(sa.String(255))
    image_id = sa.Column(sa.String(36))
    no_device = sa.Column(sa.Boolean)
    connection_info = sa.Column(types.MediumText())
    tag = sa.Column(sa.String(255))
    attachment_id = sa.Column(sa.String(36))
    encrypted = sa.Column(sa.Boolean, default=False)
    encryption_secret_uuid = sa.Column(sa.String(36))
    encryption_format = sa.Column(sa.String(128))
    encryption_options = sa.Column(sa.String(4096))

    instance = orm.relationship(
        Instance, backref=orm.backref('block_device_mapping'),
        foreign_keys=instance_uuid,
        primaryjoin=('and_(BlockDeviceMapping.instance_uuid == '
                     'Instance.uuid, BlockDeviceMapping.deleted == 0)'))


class ShareMapping(BASE, NovaBase):
    __tablename__ = 'share_mapping'
    __table_args__ = _args(
        sa.Index('share_idx', 'share_id'),
        sa.Index('share_mapping_instance_uuid_share_id_idx',
                 'instance_uuid', 'share_id'),
        sa.UniqueConstraint('instance_uuid', 'share_id',
                            name='uniq_share_mapping0instance_uuid0share_id'),
        sa.UniqueConstraint('instance_uuid', 'tag',
                            name='uniq_share_mapping0instance_uuid0tag'),
    )

    id = sa.Column(types.BigIntegerPK(), primary_key=True,
                   autoincrement=True, nullable=False)
    uuid = sa.Column(sa.String(36))
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'))
    share_id = sa.Column(sa.String(36))
    status = sa.Column(sa.String(32))
    tag = sa.Column(sa.String(48))
    export_location = sa.Column(sa.Text)
    share_proto = sa.Column(sa.String(32))


class Migration(BASE, NovaBase, SD):
    __tablename__ = 'migrations'
    __table_args__ = _args(
        sa.Index('migrations_instance_uuid_and_status_idx',
                 'deleted', 'instance_uuid', 'status'),
        sa.Index('migrations_by_host_nodes_and_status_idx',
                 'deleted', 'source_compute', 'dest_compute',
                 'source_node', 'dest_node', 'status',
                 # InnoDB keys stop at 3072 bytes; utf8mb4 needs prefixes.
                 mysql_length={'source_compute': 120, 'dest_compute': 120,
                               'source_node': 120, 'dest_node': 120}),
        sa.Index('migrations_uuid', 'uuid', unique=True),
        sa.Index('migrations_updated_at_idx', 'updated_at'),
        sa.Index('migrations_dest_compute_id_deleted_idx',
                 'dest_compute_id', 'deleted'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    uuid = sa.Column(sa.String(36), nullable=True)
    source_compute = sa.Column(sa.String(255))
    dest_compute = sa.Column(sa.String(255))
    source_node = sa.Column(sa.String(255))
    dest_node = sa.Column(sa.String(255))
    dest_compute_id = sa.Column(sa.BigInteger, nullable=True)
    dest_host = sa.Column(sa.String(255))
    old_instance_type_id = sa.Column(sa.Integer())
    new_instance_type_id = sa.Column(sa.Integer())
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'))
    status = sa.Column(sa.String(255))
    migration_type = sa.Column(
        sa.Enum('migration', 'resize', 'live-migration', 'evacuation',
                name='migration_type'), nullable=True)
    hidden = sa.Column(sa.Boolean, default=False)
    memory_total = sa.Column(sa.BigInteger, nullable=True)
    memory_processed = sa.Column(sa.BigInteger, nullable=True)
    memory_remaining = sa.Column(sa.BigInteger, nullable=True)
    disk_total = sa.Column(sa.BigInteger, nullable=True)
    disk_processed = sa.Column(sa.BigInteger, nullable=True)
    disk_remaining = sa.Column(sa.BigInteger, nullable=True)
    cross_cell_move = sa.Column(sa.Boolean, default=False)
    user_id = sa.Column(sa.String(255), nullable=True)
    project_id = sa.Column(sa.String(255), nullable=True)

    instance = orm.relationship(
        Instance, foreign_keys=instance_uuid,
        primaryjoin=('and_(Migration.instance_uuid == Instance.uuid, '
                     'Instance.deleted == 0)'))


class PciDevice(BASE, NovaBase, SD):
    __tablename__ = 'pci_devices'
    __table_args__ = _args(
        sa.Index('ix_pci_devices_compute_node_id_deleted',
                 'compute_node_id', 'deleted'),
        sa.Index('ix_pci_devices_instance_uuid_deleted',
                 'instance_uuid', 'deleted'),
        sa.Index('ix_pci_devices_compute_node_id_parent_addr_deleted',
                 'compute_node_id', 'parent_addr', 'deleted'),
        sa.UniqueConstraint(
            'compute_node_id', 'address', 'deleted',
            name='uniq_pci_devices0compute_node_id0address0deleted'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36))
    compute_node_id = sa.Column(sa.Integer,
                                sa.ForeignKey('compute_nodes.id'),
                                nullable=False)
    address = sa.Column(sa.String(12), nullable=False)
    vendor_id = sa.Column(sa.String(4), nullable=False)
    product_id = sa.Column(sa.String(4), nullable=False)
    dev_type = sa.Column(sa.String(8), nullable=False)
    dev_id = sa.Column(sa.String(255))
    label = sa.Column(sa.String(255), nullable=False)
    status = sa.Column(sa.String(36), nullable=False)
    request_id = sa.Column(sa.String(36), nullable=True)
    extra_info = sa.Column(sa.Text)
    instance_uuid = sa.Column(sa.String(36))
    numa_node = sa.Column(sa.Integer, nullable=True)
    parent_addr = sa.Column(sa.String(12), nullable=True)


class Tag(BASE, models.ModelBase):
    """A server tag; keyed by (resource_id, tag), no timestamps."""
    __tablename__ = 'tags'
    __table_args__ = _args(
        sa.Index('tags_tag_idx', 'tag'),
    )

    resource_id = sa.Column(sa.String(36), primary_key=True,
                            nullable=False)
    tag = sa.Column(sa.Unicode(80), primary_key=True, nullable=False)


class ConsoleAuthToken(BASE, NovaBase):
    __tablename__ = 'console_auth_tokens'
    __table_args__ = _args(
        sa.Index('console_auth_tokens_instance_uuid_idx', 'instance_uuid'),
        sa.Index('console_auth_tokens_host_expires_idx', 'host', 'expires'),
        sa.Index('console_auth_tokens_token_hash_instance_uuid_idx',
                 'token_hash', 'instance_uuid'),
        sa.UniqueConstraint('token_hash',
                            name='uniq_console_auth_tokens0token_hash'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    token_hash = sa.Column(sa.String(255), nullable=False)
    console_type = sa.Column(sa.String(255), nullable=False)
    host = sa.Column(sa.String(255), nullable=False)
    port = sa.Column(sa.Integer, nullable=False)
    tls_port = sa.Column(sa.Integer, nullable=True)
    internal_access_path = sa.Column(sa.String(255))
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'),
                              nullable=False)
    expires = sa.Column(sa.Integer, nullable=False)
    access_url_base = sa.Column(sa.String(255))


class VirtualInterface(BASE, NovaBase, SD):
    __tablename__ = 'virtual_interfaces'
    __table_args__ = _args(
        sa.Index('virtual_interfaces_network_id_idx', 'network_id'),
        sa.Index('virtual_interfaces_instance_uuid_fkey', 'instance_uuid'),
        sa.Index('virtual_interfaces_uuid_idx', 'uuid'),
        sa.UniqueConstraint('address', 'deleted',
                            name='uniq_virtual_interfaces0address0deleted'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    address = sa.Column(sa.String(255))
    network_id = sa.Column(sa.Integer)
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'))
    uuid = sa.Column(sa.String(36))
    tag = sa.Column(sa.String(255))


class SecurityGroupInstanceAssociation(BASE, NovaBase, SD):
    __tablename__ = 'security_group_instance_association'
    __table_args__ = _args(
        sa.Index('security_group_instance_association_instance_uuid_idx',
                 'instance_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    security_group_id = sa.Column(sa.Integer,
                                  sa.ForeignKey('security_groups.id'))
    instance_uuid = sa.Column(sa.String(36),
                              sa.ForeignKey('instances.uuid'))


class SecurityGroup(BASE, NovaBase, SD):
    """Legacy nova-network security group."""
    __tablename__ = 'security_groups'
    __table_args__ = _args(
        sa.UniqueConstraint('project_id', 'name', 'deleted',
                            name='uniq_security_groups0project_id0'
                                 'name0deleted'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(255))
    description = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))


class SecurityGroupIngressRule(BASE, NovaBase, SD):
    """Legacy nova-network security group rule."""
    __tablename__ = 'security_group_rules'
    __table_args__ = (types.TABLE_ARGS,)

    id = sa.Column(sa.Integer, primary_key=True)
    parent_group_id = sa.Column(sa.Integer,
                                sa.ForeignKey('security_groups.id'))
    protocol = sa.Column(sa.String(255))
    from_port = sa.Column(sa.Integer)
    to_port = sa.Column(sa.Integer)
    cidr = sa.Column(types.CIDR())
    group_id = sa.Column(sa.Integer, sa.ForeignKey('security_groups.id'))


class Quota(BASE, NovaBase, SD):
    """Legacy cell-database copy of the API quotas table."""
    __tablename__ = 'quotas'
    __table_args__ = _args(
        sa.UniqueConstraint('project_id', 'resource', 'deleted',
                            name='uniq_quotas0project_id0resource0deleted'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer)


class ProjectUserQuota(BASE, NovaBase, SD):
    __tablename__ = 'project_user_quotas'
    __table_args__ = _args(
        sa.Index('project_user_quotas_project_id_deleted_idx',
                 'project_id', 'deleted'),
        sa.Index('project_user_quotas_user_id_deleted_idx',
                 'user_id', 'deleted'),
        sa.UniqueConstraint(
            'user_id', 'project_id', 'resource', 'deleted',
            name='uniq_project_user_quotas0user_id0project_id0resource0'
                 'deleted'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer)


class QuotaClass(BASE, NovaBase, SD):
    __tablename__ = 'quota_classes'
    __table_args__ = _args(
        sa.Index('ix_quota_classes_class_name', 'class_name'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    class_name = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255))
    hard_limit = sa.Column(sa.Integer)


class QuotaUsage(BASE, NovaBase, SD):
    __tablename__ = 'quota_usages'
    __table_args__ = _args(
        sa.Index('ix_quota_usages_project_id', 'project_id'),
        sa.Index('ix_quota_usages_user_id_deleted', 'user_id', 'deleted'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255), nullable=False)
    in_use = sa.Column(sa.Integer, nullable=False)
    reserved = sa.Column(sa.Integer, nullable=False)
    until_refresh = sa.Column(sa.Integer)


class Reservation(BASE, NovaBase, SD):
    __tablename__ = 'reservations'
    __table_args__ = _args(
        sa.Index('ix_reservations_project_id', 'project_id'),
        sa.Index('reservations_uuid_idx', 'uuid'),
        sa.Index('reservations_deleted_expire_idx', 'deleted', 'expire'),
        sa.Index('ix_reservations_user_id_deleted', 'user_id', 'deleted'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    uuid = sa.Column(sa.String(36), nullable=False)
    usage_id = sa.Column(sa.Integer, sa.ForeignKey('quota_usages.id'),
                         nullable=False)
    project_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255))
    delta = sa.Column(sa.Integer, nullable=False)
    expire = sa.Column(sa.DateTime)


class VolumeUsage(BASE, NovaBase, SD):
    __tablename__ = 'volume_usage_cache'
    __table_args__ = (types.TABLE_ARGS,)

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    volume_id = sa.Column(sa.String(36), nullable=False)
    instance_uuid = sa.Column(sa.String(36))
    project_id = sa.Column(sa.String(36))
    user_id = sa.Column(sa.String(64))
    availability_zone = sa.Column(sa.String(255))
    tot_last_refreshed = sa.Column(sa.DateTime)
    tot_reads = sa.Column(sa.BigInteger, default=0)
    tot_read_bytes = sa.Column(sa.BigInteger, default=0)
    tot_writes = sa.Column(sa.BigInteger, default=0)
    tot_write_bytes = sa.Column(sa.BigInteger, default=0)
    curr_last_refreshed = sa.Column(sa.DateTime)
    curr_reads = sa.Column(sa.BigInteger, default=0)
    curr_read_bytes = sa.Column(sa.BigInteger, default=0)
    curr_writes = sa.Column(sa.BigInteger, default=0)
    curr_write_bytes = sa.Column(sa.BigInteger, default=0)


class TaskLog(BASE, NovaBase, SD):
    """Runs of the instance-usage audit periodic task."""
    __tablename__ = 'task_log'
    __table_args__ = _args(
        sa.Index('ix_task_log_period_beginning', 'period_beginning'),
        sa.Index('ix_task_log_host', 'host'),
        sa.Index('ix_task_log_period_ending', 'period_ending'),
        sa.UniqueConstraint(
            'task_name', 'host', 'period_beginning', 'period_ending',
            name='uniq_task_log0task_name0host0period_beginning0'
                 'period_ending'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False,
                   autoincrement=True)
    task_name = sa.Column(sa.String(255), nullable=False)
    state = sa.Column(sa.String(255), nullable=False)
    host = sa.Column(sa.String(255), nullable=False)
    period_beginning = sa.Column(sa.DateTime, nullable=False)
    period_ending = sa.Column(sa.DateTime, nullable=False)
    message = sa.Column(sa.String(255), nullable=False)
    task_items = sa.Column(sa.Integer(), default=0)
    errors = sa.Column(sa.Integer(), default=0)


class Certificate(BASE, NovaBase, SD):
    """Legacy x509 certificates (os-certificates, removed)."""
    __tablename__ = 'certificates'
    __table_args__ = _args(
        sa.Index('certificates_project_id_deleted_idx',
                 'project_id', 'deleted'),
        sa.Index('certificates_user_id_deleted_idx', 'user_id', 'deleted'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    file_name = sa.Column(sa.String(255))


class S3Image(BASE, NovaBase, SD):
    """Legacy EC2 image id mapping."""
    __tablename__ = 's3_images'
    __table_args__ = (types.TABLE_ARGS,)

    id = sa.Column(sa.Integer, primary_key=True, nullable=False,
                   autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False)
