"""[libvirt] options of the libvirt virt driver."""

from oslo_config import cfg

libvirt_group = cfg.OptGroup('libvirt', title='Libvirt driver options')

libvirt_opts = [
    cfg.StrOpt('virt_type', default='kvm', choices=['kvm', 'qemu'],
               help='Domain type; use qemu where KVM is unusable.'),
    cfg.StrOpt('connection_uri', default='',
               help='libvirt URI; empty picks one from virt_type.'),
    cfg.StrOpt('images_type', default='qcow2', choices=['qcow2', 'raw'],
               help='Format of instance disks.'),
    cfg.StrOpt('live_migration_uri',
               help='libvirt URI of a live migration\'s destination, %s '
                    'standing for its host name (deprecated in Nova for '
                    'live_migration_scheme); unset: the destination\'s '
                    'own connection_uri when it names a socket or host, '
                    'else qemu+<scheme>://<host>/system.'),
    cfg.StrOpt('live_migration_scheme',
               help='Scheme of the destination\'s libvirt URI (tcp '
                    'when unset).'),
    cfg.IntOpt('live_migration_completion_timeout', default=800, min=0,
               help='Seconds per GiB of data to copy (guest memory, at '
                    'least 2 GiB, plus the local disks of a block '
                    'migration) a live migration may take before '
                    'live_migration_timeout_action is taken; 0 waits '
                    'forever.'),
    cfg.StrOpt('live_migration_timeout_action', default='abort',
               choices=['abort', 'force_complete'],
               help='What an overdue live migration gets: abort it, or '
                    'pause the guest so the copy converges.'),
    cfg.IntOpt('live_migration_bandwidth', default=0, min=0,
               help='Cap of a live migration\'s copy in MiB/s; 0 leaves '
                    'it to libvirt.'),
    cfg.HostAddressOpt('live_migration_inbound_addr',
                       help='Address other hosts send live migration '
                            'traffic to this one on; unset: libvirt\'s '
                            'migration_host.'),
]


def register_opts(conf):
    conf.register_group(libvirt_group)
    conf.register_opts(libvirt_opts, group=libvirt_group)


def list_opts():
    return {libvirt_group: libvirt_opts}


# Options the libvirt driver reads.
libvirt_driver_opts = [
    cfg.IntOpt('tb_cache_size', min=0,
               help='TCG translation block cache per guest in MiB '
                    '(virt_type=qemu only); unset keeps QEMU\'s default.'),
    cfg.IntOpt('wait_soft_reboot_seconds', default=120, min=1,
               help='Seconds to wait for a guest to stop during a soft '
                    'reboot before falling back to a hard reboot.'),
    cfg.IntOpt('device_detach_timeout', default=20, min=1,
               help='Seconds to wait for the guest to release a device '
                    'on live detach.'),
    cfg.IntOpt('device_detach_attempts', default=8, min=1,
               help='How many times a live device detach is requested.'),
]
libvirt_opts.extend(libvirt_driver_opts)
