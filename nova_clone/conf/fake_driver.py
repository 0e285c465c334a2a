"""[fake_driver] options: capacity and failures of the fake hypervisor.

Not a Nova group; it lets tests and operators make a host behave a given way
without editing code.
"""

from oslo_config import cfg

fake_group = cfg.OptGroup('fake_driver', title='Fake virt driver')

# Big enough that three hosts take a 200-server storm of m1.tiny, small
# enough that a flavor can still find no room.
fake_opts = [
    cfg.IntOpt('vcpus', default=64, min=1, help='vCPUs of each fake host.'),
    cfg.IntOpt('memory_mb', default=131072, min=1,
               help='MiB of RAM of each fake host.'),
    cfg.IntOpt('local_gb', default=4096, min=1,
               help='GiB of local disk of each fake host.'),
    cfg.FloatOpt('spawn_seconds', default=0.0, min=0,
                 help='Time a fake spawn takes.'),
    cfg.DictOpt('fail_spawn', default={},
                help='host:mode pairs making spawn fail on that host; mode '
                     'is "retryable" (reschedule) or "fatal" (ERROR).'),
    cfg.FloatOpt('live_migration_seconds', default=0.0, min=0,
                 help='Time the memory copy of a fake live migration takes; '
                      'its progress reaches the migration record meanwhile, '
                      'so that it can be aborted or forced to complete.'),
    cfg.ListOpt('fail_live_migration', default=[],
                help='Source hosts whose fake live migrations fail during '
                     'the copy.'),
    cfg.ListOpt('refuse_live_migration', default=[],
                help='Destination hosts refusing live migrations in '
                     'check_can_live_migrate_destination (not enough '
                     'memory).'),
    cfg.BoolOpt('fail_attach_volume', default=False,
                help='Make every volume attach of the fake hypervisor '
                     'fail, as a guest refusing the disk would.'),
    cfg.BoolOpt('fail_detach_volume', default=False,
                help='Make every volume detach of the fake hypervisor '
                     'fail, as a guest holding on to the disk would.'),
]


def register_opts(conf):
    conf.register_group(fake_group)
    conf.register_opts(fake_opts, group=fake_group)


def list_opts():
    return {fake_group: fake_opts}
