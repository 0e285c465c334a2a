"""``nova-clone chaos``: what a run does unless told otherwise."""

from nova_clone.cmd import clone


def test_defaults_are_the_full_run():
    args = clone.build_parser().parse_args(['chaos', '--name', 'st'])
    assert (args.servers, args.placement_outage) == (200, 30)
    assert args.restart_rabbitmq and args.restart_mariadb


def test_shared_broker_and_database_restarts_can_be_left_out():
    args = clone.build_parser().parse_args(
        ['chaos', '--no-restart-rabbitmq', '--no-restart-mariadb',
         '--servers', '30', '--placement-outage', '0'])
    assert not args.restart_rabbitmq and not args.restart_mariadb
    assert (args.servers, args.placement_outage) == (30, 0)
