"""[conductor] options."""

from oslo_config import cfg

conductor_group = cfg.OptGroup('conductor', title='Conductor options')

conductor_opts = [
    cfg.IntOpt('workers', min=1,
               help='Processes serving the conductor topic; 1 when unset '
                    '(Nova starts one per CPU).'),
]


def register_opts(conf):
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts():
    return {conductor_group: conductor_opts}
