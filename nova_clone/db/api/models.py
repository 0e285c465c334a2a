"""Tables of the API database.

The schema itself is created by the alembic tree next to this module; a
unit test keeps the two in step.
"""

from oslo_db.sqlalchemy import models
import sqlalchemy as sa
from sqlalchemy import orm

from nova_clone.db import types

BASE = orm.declarative_base()


class _Base(models.TimestampMixin, models.ModelBase):
    """created_at/updated_at on every API table."""


def _args(*items):
    return tuple(items) + (types.TABLE_ARGS,)


class CellMapping(BASE, _Base):
    __tablename__ = 'cell_mappings'
    __table_args__ = _args(
        sa.Index('uuid_idx', 'uuid'),
        sa.UniqueConstraint('uuid', name='uniq_cell_mappings0uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255))
    transport_url = sa.Column(sa.Text())
    database_connection = sa.Column(sa.Text())
    disabled = sa.Column(sa.Boolean, default=False)

    host_mapping = orm.relationship(
        'HostMapping', back_populates='cell_mapping')
    instance_mapping = orm.relationship(
        'InstanceMapping', back_populates='cell_mapping')


class InstanceMapping(BASE, _Base):
    __tablename__ = 'instance_mappings'
    __table_args__ = _args(
        sa.Index('instance_uuid_idx', 'instance_uuid'),
        sa.Index('project_id_idx', 'project_id'),
        sa.Index('instance_mappings_user_id_project_id_idx',
                 'user_id', 'project_id'),
        # Not in Nova: quota counts a project's live mappings on every
        # create; without it the count reads every mapping the project
        # ever had (deleted servers keep theirs until archived).
        sa.Index('instance_mappings_project_id_queued_for_delete_idx',
                 'project_id', 'queued_for_delete', 'user_id'),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_instance_mappings0instance_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    cell_id = sa.Column(sa.Integer, sa.ForeignKey('cell_mappings.id'),
                        nullable=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=True)
    queued_for_delete = sa.Column(sa.Boolean, default=False)

    cell_mapping = orm.relationship(
        'CellMapping', back_populates='instance_mapping')


class HostMapping(BASE, _Base):
    __tablename__ = 'host_mappings'
    __table_args__ = _args(
        sa.Index('host_idx', 'host'),
        sa.UniqueConstraint('host', name='uniq_host_mappings0host'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    cell_id = sa.Column(sa.Integer, sa.ForeignKey('cell_mappings.id'),
                        nullable=False)
    host = sa.Column(sa.String(255), nullable=False)

    cell_mapping = orm.relationship(
        'CellMapping', back_populates='host_mapping')


class RequestSpec(BASE, _Base):
    __tablename__ = 'request_specs'
    __table_args__ = _args(
        sa.Index('request_spec_instance_uuid_idx', 'instance_uuid'),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_request_specs0instance_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    spec = sa.Column(types.MediumText(), nullable=False)


class Flavors(BASE, _Base):
    __tablename__ = 'flavors'
    __table_args__ = _args(
        sa.UniqueConstraint('flavorid', name='uniq_flavors0flavorid'),
        sa.UniqueConstraint('name', name='uniq_flavors0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(255), nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    vcpus = sa.Column(sa.Integer, nullable=False)
    root_gb = sa.Column(sa.Integer)
    ephemeral_gb = sa.Column(sa.Integer)
    flavorid = sa.Column(sa.String(255), nullable=False)
    swap = sa.Column(sa.Integer, nullable=False, default=0)
    rxtx_factor = sa.Column(sa.Float, default=1)
    vcpu_weight = sa.Column(sa.Integer)
    disabled = sa.Column(sa.Boolean, default=False)
    is_public = sa.Column(sa.Boolean, default=True)
    description = sa.Column(sa.Text)

    extra_specs = orm.relationship(
        'FlavorExtraSpecs', back_populates='flavor',
        cascade='all, delete-orphan')
    projects = orm.relationship(
        'FlavorProjects', back_populates='flavor',
        cascade='all, delete-orphan')


class FlavorExtraSpecs(BASE, _Base):
    __tablename__ = 'flavor_extra_specs'
    __table_args__ = _args(
        sa.Index('flavor_extra_specs_flavor_id_key_idx', 'flavor_id', 'key'),
        sa.UniqueConstraint('flavor_id', 'key',
                            name='uniq_flavor_extra_specs0flavor_id0key'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255))
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey('flavors.id'),
                          nullable=False)

    flavor = orm.relationship(Flavors, back_populates='extra_specs')


class FlavorProjects(BASE, _Base):
    __tablename__ = 'flavor_projects'
    __table_args__ = _args(
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_projects0flavor_id0project_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey('flavors.id'),
                          nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)

    flavor = orm.relationship(Flavors, back_populates='projects')


class BuildRequest(BASE, _Base):
    __tablename__ = 'build_requests'
    __table_args__ = _args(
        sa.Index('build_requests_project_id_idx', 'project_id'),
        sa.Index('build_requests_instance_uuid_idx', 'instance_uuid'),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_build_requests0instance_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36))
    project_id = sa.Column(sa.String(255), nullable=False)
    instance = sa.Column(types.MediumText())
    block_device_mappings = sa.Column(types.MediumText())
    tags = sa.Column(sa.Text())


class KeyPair(BASE, _Base):
    __tablename__ = 'key_pairs'
    __table_args__ = _args(
        sa.UniqueConstraint('user_id', 'name',
                            name='uniq_key_pairs0user_id0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    fingerprint = sa.Column(sa.String(255))
    public_key = sa.Column(sa.Text())
    type = sa.Column(sa.Enum('ssh', 'x509', name='keypair_types'),
                     nullable=False, server_default='ssh')


class Aggregate(BASE, _Base):
    __tablename__ = 'aggregates'
    __table_args__ = _args(
        sa.Index('aggregate_uuid_idx', 'uuid'),
        sa.UniqueConstraint('name', name='uniq_aggregate0name'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36))
    name = sa.Column(sa.String(255))

    _hosts = orm.relationship('AggregateHost', back_populates='aggregate',
                              cascade='all, delete-orphan')
    _metadata = orm.relationship('AggregateMetadata',
                                 back_populates='aggregate',
                                 cascade='all, delete-orphan')

    @property
    def hosts(self):
        return [h.host for h in self._hosts]

    @property
    def metadetails(self):
        return {m.key: m.value for m in self._metadata}

    @property
    def availability_zone(self):
        return self.metadetails.get('availability_zone')


class AggregateHost(BASE, _Base):
    __tablename__ = 'aggregate_hosts'
    __table_args__ = _args(
        sa.UniqueConstraint('host', 'aggregate_id',
                            name='uniq_aggregate_hosts0host0aggregate_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    host = sa.Column(sa.String(255))
    aggregate_id = sa.Column(sa.Integer, sa.ForeignKey('aggregates.id'),
                             nullable=False)

    aggregate = orm.relationship(Aggregate, back_populates='_hosts')


class AggregateMetadata(BASE, _Base):
    __tablename__ = 'aggregate_metadata'
    __table_args__ = _args(
        sa.Index('aggregate_metadata_key_idx', 'key'),
        sa.UniqueConstraint('aggregate_id', 'key',
                            name='uniq_aggregate_metadata0aggregate_id0key'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255), nullable=False)
    aggregate_id = sa.Column(sa.Integer, sa.ForeignKey('aggregates.id'),
                             nullable=False)

    aggregate = orm.relationship(Aggregate, back_populates='_metadata')


class InstanceGroup(BASE, _Base):
    __tablename__ = 'instance_groups'
    __table_args__ = _args(
        sa.UniqueConstraint('uuid', name='uniq_instance_groups0uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255))

    _policies = orm.relationship('InstanceGroupPolicy',
                                 back_populates='group',
                                 cascade='all, delete-orphan')
    _members = orm.relationship('InstanceGroupMember',
                                back_populates='group',
                                cascade='all, delete-orphan')

    @property
    def policy(self):
        # A group has exactly one policy since the 2.64 API.
        return self._policies[0] if self._policies else None

    @property
    def members(self):
        return [m.instance_uuid for m in self._members]


class InstanceGroupPolicy(BASE, _Base):
    __tablename__ = 'instance_group_policy'
    __table_args__ = _args(
        sa.Index('instance_group_policy_policy_idx', 'policy'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    policy = sa.Column(sa.String(255))
    group_id = sa.Column(sa.Integer, sa.ForeignKey('instance_groups.id'),
                         nullable=False)
    rules = sa.Column(sa.Text)

    group = orm.relationship(InstanceGroup, back_populates='_policies')


class InstanceGroupMember(BASE, _Base):
    __tablename__ = 'instance_group_member'
    __table_args__ = _args(
        sa.Index('instance_group_member_instance_idx', 'instance_uuid'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(255))
    group_id = sa.Column(sa.Integer, sa.ForeignKey('instance_groups.id'),
                         nullable=False)

    group = orm.relationship(InstanceGroup, back_populates='_members')


class Quota(BASE, _Base):
    """A per-project limit on a resource."""
    __tablename__ = 'quotas'
    __table_args__ = _args(
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quotas0project_id0resource'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer)


class ProjectUserQuota(BASE, _Base):
    """A per-user limit inside a project."""
    __tablename__ = 'project_user_quotas'
    __table_args__ = _args(
        sa.Index('project_user_quotas_project_id_idx', 'project_id'),
        sa.Index('project_user_quotas_user_id_idx', 'user_id'),
        sa.UniqueConstraint(
            'user_id', 'project_id', 'resource',
            name='uniq_project_user_quotas0user_id0project_id0resource'),
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer)


class QuotaClass(BASE, _Base):
    """Limits shared by a named class of projects ('default')."""
    __tablename__ = 'quota_classes'
    __table_args__ = _args(
        sa.Index('quota_classes_class_name_idx', 'class_name'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    class_name = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255))
    hard_limit = sa.Column(sa.Integer)


class QuotaUsage(BASE, _Base):
    """Legacy reservation-based usage tracking (unused by counting quotas)."""
    __tablename__ = 'quota_usages'
    __table_args__ = _args(
        sa.Index('quota_usages_project_id_idx', 'project_id'),
        sa.Index('quota_usages_user_id_idx', 'user_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255), nullable=False)
    in_use = sa.Column(sa.Integer, nullable=False)
    reserved = sa.Column(sa.Integer, nullable=False)
    until_refresh = sa.Column(sa.Integer)


class Reservation(BASE, _Base):
    """Legacy quota reservation."""
    __tablename__ = 'reservations'
    __table_args__ = _args(
        sa.Index('reservations_project_id_idx', 'project_id'),
        sa.Index('reservations_uuid_idx', 'uuid'),
        sa.Index('reservations_expire_idx', 'expire'),
        sa.Index('reservations_user_id_idx', 'user_id'),
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

    usage = orm.relationship(QuotaUsage)
