"""[workarounds] options."""

from oslo_config import cfg

workarounds_group = cfg.OptGroup('workarounds', title='Workarounds')

workarounds_opts = [
    cfg.BoolOpt('disable_compute_service_check_for_ffu', default=False,
                help='Skip the compute service version check at start.'),
    cfg.BoolOpt('disable_group_policy_check_upcall', default=False,
                help="Skip the compute's late check of a server group "
                     'policy, which reads the group through the cell '
                     'conductor: set it when cell conductors cannot reach '
                     'the API database.'),
]


def register_opts(conf):
    conf.register_group(workarounds_group)
    conf.register_opts(workarounds_opts, group=workarounds_group)


def list_opts():
    return {workarounds_group: workarounds_opts}
