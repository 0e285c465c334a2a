"""[compute] options of nova-compute."""

from oslo_config import cfg

compute_group = cfg.OptGroup('compute', title='Compute options')

compute_opts = [
    cfg.IntOpt('resource_provider_association_refresh', default=300, min=0,
               help='Seconds between refreshes of the cached provider tree.'),
    cfg.IntOpt('max_disk_devices_to_attach', default=-1, min=-1,
               help='Disk devices one instance may have (-1 = unlimited).'),
    cfg.IntOpt('consecutive_build_service_disable_threshold', default=10,
               help='Nonzero: the compute counts its failed builds in a '
                    'row in its node stats (failed_builds), which the '
                    'scheduler\'s BuildFailureWeigher uses to avoid it; '
                    '0 turns the count off.  The service is never '
                    'disabled for it.'),
    cfg.FloatOpt('cpu_allocation_ratio', help='Virtual CPU to physical CPU '
                 'ratio reported to Placement (default 4.0).'),
    cfg.FloatOpt('ram_allocation_ratio', help='Virtual RAM to physical RAM '
                 'ratio reported to Placement (default 1.0).'),
    cfg.FloatOpt('disk_allocation_ratio', help='Virtual disk to physical '
                 'disk ratio reported to Placement (default 1.0).'),
]


def register_opts(conf):
    conf.register_group(compute_group)
    conf.register_opts(compute_opts, group=compute_group)


def list_opts():
    return {compute_group: compute_opts}
