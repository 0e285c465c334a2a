"""[quota] options: the default limits of every project."""

from oslo_config import cfg

quota_group = cfg.OptGroup('quota', title='Quota options')

quota_opts = [
    cfg.IntOpt('instances', default=10, min=-1, help='Servers per project.'),
    cfg.IntOpt('cores', default=20, min=-1, help='vCPUs per project.'),
    cfg.IntOpt('ram', default=50 * 1024, min=-1,
               help='MiB of RAM per project.'),
    cfg.IntOpt('metadata_items', default=128, min=-1,
               help='Metadata items per server.'),
    cfg.IntOpt('injected_files', default=5, min=-1, help='Injected files.'),
    cfg.IntOpt('injected_file_content_bytes', default=10 * 1024, min=-1,
               help='Bytes per injected file.'),
    cfg.IntOpt('injected_file_path_length', default=255, min=-1,
               help='Length of an injected file path.'),
    cfg.IntOpt('key_pairs', default=100, min=-1, help='Key pairs per user.'),
    cfg.IntOpt('server_groups', default=10, min=-1,
               help='Server groups per project.'),
    cfg.IntOpt('server_group_members', default=10, min=-1,
               help='Servers per server group.'),
    cfg.BoolOpt('recheck_quota', default=True,
                help='Count usage again after a boot has recorded its '
                     'servers, and refuse the boot if parallel requests '
                     'took the room meanwhile (both may then be refused, '
                     'never both accepted over the limit).'),
    cfg.StrOpt('driver', default='nova.quota.DbQuotaDriver',
               help='Quota driver; only the database driver is supported.'),
]


def register_opts(conf):
    conf.register_group(quota_group)
    conf.register_opts(quota_opts, group=quota_group)


def list_opts():
    return {quota_group: quota_opts}
