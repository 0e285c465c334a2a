"""[DEFAULT] options of the services (host identity, timeouts, intervals)."""

import socket

from oslo_config import cfg

service_opts = [
    cfg.IntOpt('reserved_host_memory_mb', default=512, min=0,
               help='Memory kept back for the host.'),
    cfg.IntOpt('reserved_host_disk_mb', default=0, min=0,
               help='Disk kept back for the host.'),
    cfg.IntOpt('reserved_host_cpus', default=0, min=0,
               help='CPUs kept back for the host.'),
    cfg.StrOpt('host', default=socket.gethostname(),
               sample_default='<hostname>',
               help='Name of this node; a compute service is addressed by it '
                    'over RPC and in the services table.'),
    cfg.StrOpt('my_ip', default='127.0.0.1',
               help='IP address of this host on the management network.'),
    cfg.StrOpt('state_path', default='/var/lib/nova',
               help='Top-level directory for keeping state.'),
    cfg.StrOpt('instances_path', default='$state_path/instances',
               help='Where instance disks and the image cache live.'),
    cfg.IntOpt('report_interval', default=10, min=1,
               help='Seconds between a service heartbeat into the services '
                    'table.'),
    cfg.IntOpt('service_down_time', default=60, min=1,
               help='A service whose last heartbeat is older than this many '
                    'seconds is reported down.'),
    cfg.BoolOpt('instance_usage_audit', default=False,
                help='Computes audit the usage of their instances each '
                     'period: a compute.instance.exists notification per '
                     'instance and a task_log row per host.'),
    cfg.StrOpt('instance_usage_audit_period', default='month',
               choices=('hour', 'day', 'month', 'year'),
               help='Length of the periods instance usage is audited over; '
                    '/os-instance_usage_audit_log reports the last whole '
                    'one.'),
    cfg.IntOpt('periodic_interval', default=60, min=1,
               help='Seconds between runs of periodic tasks.'),
    cfg.BoolOpt('periodic_enable', default=True,
                help='Run the periodic tasks of a service.'),
    cfg.IntOpt('long_rpc_timeout', default=1800, min=1,
               help='Timeout for RPC calls that are known to take long, '
                    'such as select_destinations.'),
    cfg.StrOpt('compute_driver', default='fake.FakeDriver',
               help='The virt driver of nova-compute: fake.FakeDriver or '
                    'libvirt.LibvirtDriver.'),
    cfg.IntOpt('vif_plugging_timeout', default=300, min=0,
               help='Seconds to wait for network-vif-plugged before a '
                    'spawn gives up (0 = do not wait).'),
    cfg.BoolOpt('vif_plugging_is_fatal', default=True,
                help='Fail the build when network-vif-plugged does not '
                     'arrive in time.'),
    cfg.IntOpt('max_concurrent_builds', default=10, min=0,
               help='Builds a compute runs at once (0 = unlimited).'),
    cfg.IntOpt('max_concurrent_live_migrations', default=1, min=0,
               help='Outgoing live migrations a compute runs at once (0 = '
                    'unlimited); the rest wait with status queued.'),
    cfg.StrOpt('running_deleted_instance_action', default='reap',
               choices=['noop', 'log', 'shutdown', 'reap'],
               help='What to do with guests still running for deleted '
                    'instances.'),
    cfg.IntOpt('running_deleted_instance_poll_interval', default=1800,
               help='Seconds between checks for running deleted guests '
                    '(0 disables).'),
    cfg.IntOpt('shelved_offload_time', default=0, min=-1,
               help='Seconds a shelved server keeps its host before it is '
                    'offloaded: 0 offloads at once, -1 never.'),
    cfg.IntOpt('shelved_poll_interval', default=3600,
               help='Seconds between checks for shelved servers due to be '
                    'offloaded (0 or less disables).'),
    cfg.IntOpt('running_deleted_instance_timeout', default=0,
               help='Seconds an instance must have been deleted before '
                    'its guest is acted on.'),
    cfg.IntOpt('reclaim_instance_interval', default=0,
               help='Soft-delete grace period in seconds (0 = hard delete).'),
    cfg.StrOpt('instance_name_template', default='instance-%08x',
               help='Template for the hypervisor name of an instance.'),
    cfg.StrOpt('default_availability_zone', default='nova',
               help='Availability zone of compute hosts with no aggregate.'),
    cfg.StrOpt('default_schedule_zone',
               help='Zone given to servers created without one.'),
    cfg.StrOpt('internal_service_availability_zone', default='internal',
               help='Zone reported for non-compute services.'),
    cfg.BoolOpt('allow_resize_to_same_host', default=False,
                help='Let a resize pick the host the server is on.'),
    cfg.IntOpt('resize_confirm_window', default=0, min=0,
               help='Seconds after which a resized server not confirmed '
                    'by its user is confirmed automatically (0 = never).'),
    cfg.IntOpt('shutdown_timeout', default=60, min=0,
               help='Seconds a guest gets to shut down cleanly before it '
                    'is powered off (resize, stop).'),
    cfg.StrOpt('osapi_compute_listen', default='0.0.0.0',
               help='Address nova-api listens on.'),
    cfg.PortOpt('osapi_compute_listen_port', default=8774,
                help='Port nova-api listens on.'),
    cfg.IntOpt('osapi_compute_workers', min=1,
               help='Worker processes of nova-api.'),
    cfg.IntOpt('cell_worker_thread_pool_size', default=5, min=1,
               help='Threads of a process that query cells in parallel, '
                    'shared by all its requests.'),
    cfg.IntOpt('graceful_shutdown_timeout', default=180, min=0,
               help='Seconds a stopping service waits for in-flight work.'),
]


def register_opts(conf):
    conf.register_opts(service_opts)


def list_opts():
    return {'DEFAULT': service_opts}


# How the daemons run their periodic tasks.
service_opts.extend([
    cfg.IntOpt('periodic_fuzzy_delay', default=60, min=0,
               help='At most this many seconds of random delay before a '
                    'service first runs its periodic tasks, so services '
                    'started together do not run them in lock-step.'),
])


# nova-compute periodic task intervals and boot-from-volume waits (Nova's
# [DEFAULT] names and defaults).
service_opts.extend([
    cfg.IntOpt('update_resources_interval', default=0,
               help='Seconds between resource tracker updates (0 = the '
                    'periodic task default of 60 seconds, <0 disables).'),
    cfg.IntOpt('sync_power_state_interval', default=600,
               help='Seconds between syncs of DB power states with the '
                    'hypervisor (<0 disables).'),
    cfg.IntOpt('block_device_allocate_retries', default=60, min=0,
               help='Status checks of a volume created for a boot before '
                    'giving up.'),
    cfg.IntOpt('block_device_allocate_retries_interval', default=3, min=0,
               help='Seconds between those checks.'),
])
