# ruff: noqa: E501
"""Initial cell database schema: every table, index and constraint.

Revision ID: 8f2f1571d55b
Revises:
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '8f2f1571d55b'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('certificates',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('file_name', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('certificates_project_id_deleted_idx', 'certificates', ['project_id', 'deleted'], unique=False)
    op.create_index('certificates_user_id_deleted_idx', 'certificates', ['user_id', 'deleted'], unique=False)
    op.create_table('compute_nodes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('service_id', sa.Integer(), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('vcpus', sa.Integer(), nullable=False),
    sa.Column('memory_mb', sa.Integer(), nullable=False),
    sa.Column('local_gb', sa.Integer(), nullable=False),
    sa.Column('vcpus_used', sa.Integer(), nullable=False),
    sa.Column('memory_mb_used', sa.Integer(), nullable=False),
    sa.Column('local_gb_used', sa.Integer(), nullable=False),
    sa.Column('hypervisor_type', sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'), nullable=False),
    sa.Column('hypervisor_version', sa.Integer(), nullable=False),
    sa.Column('hypervisor_hostname', sa.String(length=255), nullable=True),
    sa.Column('free_ram_mb', sa.Integer(), nullable=True),
    sa.Column('free_disk_gb', sa.Integer(), nullable=True),
    sa.Column('current_workload', sa.Integer(), nullable=True),
    sa.Column('running_vms', sa.Integer(), nullable=True),
    sa.Column('cpu_info', sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'), nullable=False),
    sa.Column('disk_available_least', sa.Integer(), nullable=True),
    sa.Column('host_ip', sa.String(length=39), nullable=True),
    sa.Column('supported_instances', sa.Text(), nullable=True),
    sa.Column('metrics', sa.Text(), nullable=True),
    sa.Column('pci_stats', sa.Text(), nullable=True),
    sa.Column('extra_resources', sa.Text(), nullable=True),
    sa.Column('stats', sa.Text(), nullable=True),
    sa.Column('numa_topology', sa.Text(), nullable=True),
    sa.Column('ram_allocation_ratio', sa.Float(), nullable=True),
    sa.Column('cpu_allocation_ratio', sa.Float(), nullable=True),
    sa.Column('disk_allocation_ratio', sa.Float(), nullable=True),
    sa.Column('mapped', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('host', 'hypervisor_hostname', 'deleted', name='uniq_compute_nodes0host0hypervisor_hostname0deleted'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('compute_nodes_uuid_idx', 'compute_nodes', ['uuid'], unique=True)
    op.create_table('instance_id_mappings',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_instance_id_mappings_uuid', 'instance_id_mappings', ['uuid'], unique=False)
    op.create_table('instances',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('image_ref', sa.String(length=255), nullable=True),
    sa.Column('kernel_id', sa.String(length=255), nullable=True),
    sa.Column('ramdisk_id', sa.String(length=255), nullable=True),
    sa.Column('hostname', sa.String(length=255), nullable=True),
    sa.Column('launch_index', sa.Integer(), nullable=True),
    sa.Column('key_name', sa.String(length=255), nullable=True),
    sa.Column('key_data', sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'), nullable=True),
    sa.Column('power_state', sa.Integer(), nullable=True),
    sa.Column('vm_state', sa.String(length=255), nullable=True),
    sa.Column('task_state', sa.String(length=255), nullable=True),
    sa.Column('memory_mb', sa.Integer(), nullable=True),
    sa.Column('vcpus', sa.Integer(), nullable=True),
    sa.Column('root_gb', sa.Integer(), nullable=True),
    sa.Column('ephemeral_gb', sa.Integer(), nullable=True),
    sa.Column('ephemeral_key_uuid', sa.String(length=36), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('node', sa.String(length=255), nullable=True),
    sa.Column('compute_id', sa.BigInteger(), nullable=True),
    sa.Column('instance_type_id', sa.Integer(), nullable=True),
    sa.Column('user_data', sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'), nullable=True),
    sa.Column('reservation_id', sa.String(length=255), nullable=True),
    sa.Column('launched_at', sa.DateTime(), nullable=True),
    sa.Column('terminated_at', sa.DateTime(), nullable=True),
    sa.Column('availability_zone', sa.String(length=255), nullable=True),
    sa.Column('display_name', sa.String(length=255), nullable=True),
    sa.Column('display_description', sa.String(length=255), nullable=True),
    sa.Column('launched_on', sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'), nullable=True),
    sa.Column('locked', sa.Boolean(), nullable=True),
    sa.Column('locked_by', sa.Enum('owner', 'admin', name='instances0locked_by'), nullable=True),
    sa.Column('os_type', sa.String(length=255), nullable=True),
    sa.Column('architecture', sa.String(length=255), nullable=True),
    sa.Column('vm_mode', sa.String(length=255), nullable=True),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('root_device_name', sa.String(length=255), nullable=True),
    sa.Column('default_ephemeral_device', sa.String(length=255), nullable=True),
    sa.Column('default_swap_device', sa.String(length=255), nullable=True),
    sa.Column('config_drive', sa.String(length=255), nullable=True),
    sa.Column('access_ip_v4', sa.String(length=39), nullable=True),
    sa.Column('access_ip_v6', sa.String(length=39), nullable=True),
    sa.Column('auto_disk_config', sa.Boolean(), nullable=True),
    sa.Column('progress', sa.Integer(), nullable=True),
    sa.Column('shutdown_terminate', sa.Boolean(), nullable=True),
    sa.Column('disable_terminate', sa.Boolean(), nullable=True),
    sa.Column('cell_name', sa.String(length=255), nullable=True),
    sa.Column('cleaned', sa.Integer(), nullable=True),
    sa.Column('hidden', sa.Boolean(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_instances0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('instances_compute_id_deleted_idx', 'instances', ['compute_id', 'deleted'], unique=False)
    op.create_index('instances_deleted_created_at_idx', 'instances', ['deleted', 'created_at'], unique=False)
    op.create_index('instances_host_deleted_cleaned_idx', 'instances', ['host', 'deleted', 'cleaned'], unique=False)
    op.create_index('instances_host_node_deleted_idx', 'instances', ['host', 'node', 'deleted'], unique=False)
    op.create_index('instances_project_id_deleted_idx', 'instances', ['project_id', 'deleted'], unique=False)
    op.create_index('instances_project_id_idx', 'instances', ['project_id'], unique=False)
    op.create_index('instances_reservation_id_idx', 'instances', ['reservation_id'], unique=False)
    op.create_index('instances_task_state_updated_at_idx', 'instances', ['task_state', 'updated_at'], unique=False)
    op.create_index('instances_terminated_at_launched_at_idx', 'instances', ['terminated_at', 'launched_at'], unique=False)
    op.create_index('instances_updated_at_project_id_idx', 'instances', ['updated_at', 'project_id'], unique=False)
    op.create_index('instances_uuid_deleted_idx', 'instances', ['uuid', 'deleted'], unique=False)
    op.create_table('project_user_quotas',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.String(length=255), nullable=False),
    sa.Column('user_id', sa.String(length=255), nullable=False),
    sa.Column('resource', sa.String(length=255), nullable=False),
    sa.Column('hard_limit', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('user_id', 'project_id', 'resource', 'deleted', name='uniq_project_user_quotas0user_id0project_id0resource0deleted'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('project_user_quotas_project_id_deleted_idx', 'project_user_quotas', ['project_id', 'deleted'], unique=False)
    op.create_index('project_user_quotas_user_id_deleted_idx', 'project_user_quotas', ['user_id', 'deleted'], unique=False)
    op.create_table('quota_classes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('class_name', sa.String(length=255), nullable=True),
    sa.Column('resource', sa.String(length=255), nullable=True),
    sa.Column('hard_limit', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_quota_classes_class_name', 'quota_classes', ['class_name'], unique=False)
    op.create_table('quota_usages',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('resource', sa.String(length=255), nullable=False),
    sa.Column('in_use', sa.Integer(), nullable=False),
    sa.Column('reserved', sa.Integer(), nullable=False),
    sa.Column('until_refresh', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_quota_usages_project_id', 'quota_usages', ['project_id'], unique=False)
    op.create_index('ix_quota_usages_user_id_deleted', 'quota_usages', ['user_id', 'deleted'], unique=False)
    op.create_table('quotas',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('resource', sa.String(length=255), nullable=False),
    sa.Column('hard_limit', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('project_id', 'resource', 'deleted', name='uniq_quotas0project_id0resource0deleted'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_table('s3_images',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_table('security_groups',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('description', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('project_id', 'name', 'deleted', name='uniq_security_groups0project_id0name0deleted'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_table('services',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('binary', sa.String(length=255), nullable=True),
    sa.Column('topic', sa.String(length=255), nullable=True),
    sa.Column('report_count', sa.Integer(), nullable=False),
    sa.Column('disabled', sa.Boolean(), nullable=True),
    sa.Column('disabled_reason', sa.String(length=255), nullable=True),
    sa.Column('last_seen_up', sa.DateTime(), nullable=True),
    sa.Column('forced_down', sa.Boolean(), nullable=True),
    sa.Column('version', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('host', 'binary', 'deleted', name='uniq_services0host0binary0deleted'),
    sa.UniqueConstraint('host', 'topic', 'deleted', name='uniq_services0host0topic0deleted'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('services_uuid_idx', 'services', ['uuid'], unique=True)
    op.create_table('tags',
    sa.Column('resource_id', sa.String(length=36), nullable=False),
    sa.Column('tag', sa.Unicode(length=80), nullable=False),
    sa.PrimaryKeyConstraint('resource_id', 'tag'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('tags_tag_idx', 'tags', ['tag'], unique=False)
    op.create_table('task_log',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('task_name', sa.String(length=255), nullable=False),
    sa.Column('state', sa.String(length=255), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('period_beginning', sa.DateTime(), nullable=False),
    sa.Column('period_ending', sa.DateTime(), nullable=False),
    sa.Column('message', sa.String(length=255), nullable=False),
    sa.Column('task_items', sa.Integer(), nullable=True),
    sa.Column('errors', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('task_name', 'host', 'period_beginning', 'period_ending', name='uniq_task_log0task_name0host0period_beginning0period_ending'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_task_log_host', 'task_log', ['host'], unique=False)
    op.create_index('ix_task_log_period_beginning', 'task_log', ['period_beginning'], unique=False)
    op.create_index('ix_task_log_period_ending', 'task_log', ['period_ending'], unique=False)
    op.create_table('volume_usage_cache',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('volume_id', sa.String(length=36), nullable=False),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('project_id', sa.String(length=36), nullable=True),
    sa.Column('user_id', sa.String(length=64), nullable=True),
    sa.Column('availability_zone', sa.String(length=255), nullable=True),
    sa.Column('tot_last_refreshed', sa.DateTime(), nullable=True),
    sa.Column('tot_reads', sa.BigInteger(), nullable=True),
    sa.Column('tot_read_bytes', sa.BigInteger(), nullable=True),
    sa.Column('tot_writes', sa.BigInteger(), nullable=True),
    sa.Column('tot_write_bytes', sa.BigInteger(), nullable=True),
    sa.Column('curr_last_refreshed', sa.DateTime(), nullable=True),
    sa.Column('curr_reads', sa.BigInteger(), nullable=True),
    sa.Column('curr_read_bytes', sa.BigInteger(), nullable=True),
    sa.Column('curr_writes', sa.BigInteger(), nullable=True),
    sa.Column('curr_write_bytes', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_table('block_device_mapping',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('source_type', sa.String(length=255), nullable=True),
    sa.Column('destination_type', sa.String(length=255), nullable=True),
    sa.Column('guest_format', sa.String(length=255), nullable=True),
    sa.Column('device_type', sa.String(length=255), nullable=True),
    sa.Column('disk_bus', sa.String(length=255), nullable=True),
    sa.Column('boot_index', sa.Integer(), nullable=True),
    sa.Column('device_name', sa.String(length=255), nullable=True),
    sa.Column('delete_on_termination', sa.Boolean(), nullable=True),
    sa.Column('snapshot_id', sa.String(length=36), nullable=True),
    sa.Column('volume_id', sa.String(length=36), nullable=True),
    sa.Column('volume_size', sa.Integer(), nullable=True),
    sa.Column('volume_type', sa.String(length=255), nullable=True),
    sa.Column('image_id', sa.String(length=36), nullable=True),
    sa.Column('no_device', sa.Boolean(), nullable=True),
    sa.Column('connection_info', sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'), nullable=True),
    sa.Column('tag', sa.String(length=255), nullable=True),
    sa.Column('attachment_id', sa.String(length=36), nullable=True),
    sa.Column('encrypted', sa.Boolean(), nullable=True),
    sa.Column('encryption_secret_uuid', sa.String(length=36), nullable=True),
    sa.Column('encryption_format', sa.String(length=128), nullable=True),
    sa.Column('encryption_options', sa.String(length=4096), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_block_device_mapping0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('block_device_mapping_instance_uuid_device_name_idx', 'block_device_mapping', ['instance_uuid', 'device_name'], unique=False)
    op.create_index('block_device_mapping_instance_uuid_idx', 'block_device_mapping', ['instance_uuid'], unique=False)
    op.create_index('block_device_mapping_instance_uuid_volume_id_idx', 'block_device_mapping', ['instance_uuid', 'volume_id'], unique=False)
    op.create_index('snapshot_id', 'block_device_mapping', ['snapshot_id'], unique=False)
    op.create_index('volume_id', 'block_device_mapping', ['volume_id'], unique=False)
    op.create_table('console_auth_tokens',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=255), nullable=False),
    sa.Column('console_type', sa.String(length=255), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('port', sa.Integer(), nullable=False),
    sa.Column('tls_port', sa.Integer(), nullable=True),
    sa.Column('internal_access_path', sa.String(length=255), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=False),
    sa.Column('expires', sa.Integer(), nullable=False),
    sa.Column('access_url_base', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_hash', name='uniq_console_auth_tokens0token_hash'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('console_auth_tokens_host_expires_idx', 'console_auth_tokens', ['host', 'expires'], unique=False)
    op.create_index('console_auth_tokens_instance_uuid_idx', 'console_auth_tokens', ['instance_uuid'], unique=False)
    op.create_index('console_auth_tokens_token_hash_instance_uuid_idx', 'console_auth_tokens', ['token_hash', 'instance_uuid'], unique=False)
    op.create_table('instance_actions',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('action', sa.String(length=255), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('request_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('start_time', sa.DateTime(), nullable=True),
    sa.Column('finish_time', sa.DateTime(), nullable=True),
    sa.Column('message', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('instance_actions_instance_uuid_updated_at_idx', 'instance_actions', ['instance_uuid', 'updated_at'], unique=False)
    op.create_index('instance_uuid_idx', 'instance_actions', ['instance_uuid'], unique=False)
    op.create_index('request_id_idx', 'instance_actions', ['request_id'], unique=False)
    op.create_table('instance_extra',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('instance_uuid', sa.String(length=36), nullable=False),
    sa.Column('device_metadata', sa.Text(), nullable=True),
    sa.Column('numa_topology', sa.Text(), nullable=True),
    sa.Column('pci_requests', sa.Text(), nullable=True),
    sa.Column('flavor', sa.Text(), nullable=True),
    sa.Column('vcpu_model', sa.Text(), nullable=True),
    sa.Column('migration_context', sa.Text(), nullable=True),
    sa.Column('keypairs', sa.Text(), nullable=True),
    sa.Column('trusted_certs', sa.Text(), nullable=True),
    sa.Column('resources', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('instance_extra_idx', 'instance_extra', ['instance_uuid'], unique=False)
    op.create_table('instance_faults',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('code', sa.Integer(), nullable=False),
    sa.Column('message', sa.String(length=255), nullable=True),
    sa.Column('details', sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('instance_faults_host_idx', 'instance_faults', ['host'], unique=False)
    op.create_index('instance_faults_instance_uuid_deleted_created_at_idx', 'instance_faults', ['instance_uuid', 'deleted', 'created_at'], unique=False)
    op.create_table('instance_info_caches',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('network_info', sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('instance_uuid', name='uniq_instance_info_caches0instance_uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_table('instance_metadata',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=255), nullable=True),
    sa.Column('value', sa.String(length=255), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('instance_metadata_instance_uuid_idx', 'instance_metadata', ['instance_uuid'], unique=False)
    op.create_table('instance_system_metadata',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=255), nullable=False),
    sa.Column('value', sa.String(length=255), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('instance_uuid', 'instance_system_metadata', ['instance_uuid'], unique=False)
    op.create_table('migrations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('source_compute', sa.String(length=255), nullable=True),
    sa.Column('dest_compute', sa.String(length=255), nullable=True),
    sa.Column('source_node', sa.String(length=255), nullable=True),
    sa.Column('dest_node', sa.String(length=255), nullable=True),
    sa.Column('dest_compute_id', sa.BigInteger(), nullable=True),
    sa.Column('dest_host', sa.String(length=255), nullable=True),
    sa.Column('old_instance_type_id', sa.Integer(), nullable=True),
    sa.Column('new_instance_type_id', sa.Integer(), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('status', sa.String(length=255), nullable=True),
    sa.Column('migration_type', sa.Enum('migration', 'resize', 'live-migration', 'evacuation', name='migration_type'), nullable=True),
    sa.Column('hidden', sa.Boolean(), nullable=True),
    sa.Column('memory_total', sa.BigInteger(), nullable=True),
    sa.Column('memory_processed', sa.BigInteger(), nullable=True),
    sa.Column('memory_remaining', sa.BigInteger(), nullable=True),
    sa.Column('disk_total', sa.BigInteger(), nullable=True),
    sa.Column('disk_processed', sa.BigInteger(), nullable=True),
    sa.Column('disk_remaining', sa.BigInteger(), nullable=True),
    sa.Column('cross_cell_move', sa.Boolean(), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('migrations_by_host_nodes_and_status_idx', 'migrations', ['deleted', 'source_compute', 'dest_compute', 'source_node', 'dest_node', 'status'], unique=False, mysql_length={'source_compute': 120, 'dest_compute': 120, 'source_node': 120, 'dest_node': 120})
    op.create_index('migrations_dest_compute_id_deleted_idx', 'migrations', ['dest_compute_id', 'deleted'], unique=False)
    op.create_index('migrations_instance_uuid_and_status_idx', 'migrations', ['deleted', 'instance_uuid', 'status'], unique=False)
    op.create_index('migrations_updated_at_idx', 'migrations', ['updated_at'], unique=False)
    op.create_index('migrations_uuid', 'migrations', ['uuid'], unique=True)
    op.create_table('pci_devices',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('compute_node_id', sa.Integer(), nullable=False),
    sa.Column('address', sa.String(length=12), nullable=False),
    sa.Column('vendor_id', sa.String(length=4), nullable=False),
    sa.Column('product_id', sa.String(length=4), nullable=False),
    sa.Column('dev_type', sa.String(length=8), nullable=False),
    sa.Column('dev_id', sa.String(length=255), nullable=True),
    sa.Column('label', sa.String(length=255), nullable=False),
    sa.Column('status', sa.String(length=36), nullable=False),
    sa.Column('request_id', sa.String(length=36), nullable=True),
    sa.Column('extra_info', sa.Text(), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('numa_node', sa.Integer(), nullable=True),
    sa.Column('parent_addr', sa.String(length=12), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['compute_node_id'], ['compute_nodes.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('compute_node_id', 'address', 'deleted', name='uniq_pci_devices0compute_node_id0address0deleted'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_pci_devices_compute_node_id_deleted', 'pci_devices', ['compute_node_id', 'deleted'], unique=False)
    op.create_index('ix_pci_devices_compute_node_id_parent_addr_deleted', 'pci_devices', ['compute_node_id', 'parent_addr', 'deleted'], unique=False)
    op.create_index('ix_pci_devices_instance_uuid_deleted', 'pci_devices', ['instance_uuid', 'deleted'], unique=False)
    op.create_table('reservations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('usage_id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('resource', sa.String(length=255), nullable=True),
    sa.Column('delta', sa.Integer(), nullable=False),
    sa.Column('expire', sa.DateTime(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['usage_id'], ['quota_usages.id'], ),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_reservations_project_id', 'reservations', ['project_id'], unique=False)
    op.create_index('ix_reservations_user_id_deleted', 'reservations', ['user_id', 'deleted'], unique=False)
    op.create_index('reservations_deleted_expire_idx', 'reservations', ['deleted', 'expire'], unique=False)
    op.create_index('reservations_uuid_idx', 'reservations', ['uuid'], unique=False)
    op.create_table('security_group_instance_association',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('security_group_id', sa.Integer(), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.ForeignKeyConstraint(['security_group_id'], ['security_groups.id'], ),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('security_group_instance_association_instance_uuid_idx', 'security_group_instance_association', ['instance_uuid'], unique=False)
    op.create_table('security_group_rules',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('parent_group_id', sa.Integer(), nullable=True),
    sa.Column('protocol', sa.String(length=255), nullable=True),
    sa.Column('from_port', sa.Integer(), nullable=True),
    sa.Column('to_port', sa.Integer(), nullable=True),
    sa.Column('cidr', sa.String(length=43), nullable=True),
    sa.Column('group_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['group_id'], ['security_groups.id'], ),
    sa.ForeignKeyConstraint(['parent_group_id'], ['security_groups.id'], ),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_table('share_mapping',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('share_id', sa.String(length=36), nullable=True),
    sa.Column('status', sa.String(length=32), nullable=True),
    sa.Column('tag', sa.String(length=48), nullable=True),
    sa.Column('export_location', sa.Text(), nullable=True),
    sa.Column('share_proto', sa.String(length=32), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('instance_uuid', 'share_id', name='uniq_share_mapping0instance_uuid0share_id'),
    sa.UniqueConstraint('instance_uuid', 'tag', name='uniq_share_mapping0instance_uuid0tag'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('share_idx', 'share_mapping', ['share_id'], unique=False)
    op.create_index('share_mapping_instance_uuid_share_id_idx', 'share_mapping', ['instance_uuid', 'share_id'], unique=False)
    op.create_table('virtual_interfaces',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('address', sa.String(length=255), nullable=True),
    sa.Column('network_id', sa.Integer(), nullable=True),
    sa.Column('instance_uuid', sa.String(length=36), nullable=True),
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('tag', sa.String(length=255), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['instance_uuid'], ['instances.uuid'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('address', 'deleted', name='uniq_virtual_interfaces0address0deleted'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('virtual_interfaces_instance_uuid_fkey', 'virtual_interfaces', ['instance_uuid'], unique=False)
    op.create_index('virtual_interfaces_network_id_idx', 'virtual_interfaces', ['network_id'], unique=False)
    op.create_index('virtual_interfaces_uuid_idx', 'virtual_interfaces', ['uuid'], unique=False)
    op.create_table('instance_actions_events',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('event', sa.String(length=255), nullable=True),
    sa.Column('action_id', sa.Integer(), nullable=True),
    sa.Column('start_time', sa.DateTime(), nullable=True),
    sa.Column('finish_time', sa.DateTime(), nullable=True),
    sa.Column('result', sa.String(length=255), nullable=True),
    sa.Column('traceback', sa.Text(), nullable=True),
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('details', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('deleted', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['action_id'], ['instance_actions.id'], ),
    sa.PrimaryKeyConstraint('id'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
