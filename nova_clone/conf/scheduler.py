"""[scheduler] and [filter_scheduler] options."""

from oslo_config import cfg

scheduler_group = cfg.OptGroup('scheduler', title='Scheduler options')
filter_group = cfg.OptGroup('filter_scheduler',
                            title='Filter scheduler options')

scheduler_opts = [
    cfg.IntOpt('max_attempts', default=3, min=1,
               help='Hosts tried for one build (the first and alternates).'),
    cfg.IntOpt('discover_hosts_in_cells_interval', default=-1, min=-1,
               help='Seconds between automatic discover_hosts runs '
                    '(-1 disables).'),
    cfg.IntOpt('max_placement_results', default=1000, min=1,
               help='Allocation candidates asked of Placement.'),
    cfg.FloatOpt('allocation_candidates_reuse_seconds', default=1.0,
                 min=0,
                 help='Requests asking Placement the same allocation '
                      'candidates question within this many seconds share '
                      'one answer; the claims made since it are taken off '
                      'and a request that finds no room asks again.  0 '
                      'asks Placement for every request, as Nova does.'),
    cfg.BoolOpt('query_placement_for_availability_zone', default=True,
                help='Ask Placement only for the providers of the host '
                     'aggregates making up the requested availability '
                     'zone.'),
    cfg.BoolOpt('limit_tenants_to_placement_aggregate', default=False,
                help='Send a project to the aggregates whose '
                     'filter_tenant_id* metadata names it.'),
    cfg.BoolOpt('placement_aggregate_required_for_tenants', default=False,
                help='With limit_tenants_to_placement_aggregate, a project '
                     'no aggregate names gets no host at all.'),
    cfg.BoolOpt('enable_isolated_aggregate_filtering', default=False,
                help='Keep requests off the aggregates whose trait:* '
                     'metadata requires traits the request does not '
                     'ask for.'),
    cfg.IntOpt('workers', min=1,
               help='Processes serving the scheduler topic; 1 when unset '
                    '(Nova starts one per CPU).  Each keeps its own '
                    'ledger of claims in flight, so a storm spreads less '
                    'evenly over equal hosts with more than one.'),
]

filter_opts = [
    cfg.IntOpt('host_subset_size', default=1, min=1,
               help='Pick randomly among this many best hosts.'),
    cfg.ListOpt('enabled_filters',
                default=['ComputeFilter', 'AvailabilityZoneFilter',
                         'ComputeCapabilitiesFilter',
                         'ImagePropertiesFilter',
                         'ServerGroupAntiAffinityFilter',
                         'ServerGroupAffinityFilter'],
                help='Filters applied, in order, to candidate hosts.'),
    cfg.ListOpt('weight_classes', default=['all'],
                help='Weighers applied to the hosts left.'),
    cfg.FloatOpt('ram_weight_multiplier', default=1.0,
                 help='Positive spreads by free RAM, negative stacks.'),
    cfg.FloatOpt('cpu_weight_multiplier', default=1.0,
                 help='Positive spreads by free vCPUs, negative stacks.'),
    cfg.FloatOpt('disk_weight_multiplier', default=1.0,
                 help='Positive spreads by free disk, negative stacks.'),
    cfg.FloatOpt('build_failure_weight_multiplier', default=1000000.0,
                 help='Weight taken off a host per the failed builds in a '
                      'row it reports; large so a failing host comes after '
                      'every healthy one.'),
    cfg.FloatOpt('soft_affinity_weight_multiplier', default=1.0, min=0.0,
                 help='Weight of the servers of a soft-affinity group '
                      'already on a host: more stacks them harder.'),
    cfg.FloatOpt('soft_anti_affinity_weight_multiplier', default=1.0,
                 min=0.0,
                 help='Weight against the servers of a soft-anti-affinity '
                      'group already on a host: more spreads them harder.'),
    cfg.BoolOpt('shuffle_best_same_weighed_hosts', default=False,
                help='Shuffle hosts of equal best weight.'),
]


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)
    conf.register_group(filter_group)
    conf.register_opts(filter_opts, group=filter_group)


def list_opts():
    return {scheduler_group: scheduler_opts, filter_group: filter_opts}
