"""Up/down decisions of the service group API."""

import datetime

from oslo_utils import timeutils

from nova_clone import objects
from nova_clone import servicegroup


def _service(**kw):
    objects.register_all()
    return objects.Service(host='h', binary='nova-compute', topic='compute',
                           forced_down=False, **kw)


def test_recent_heartbeat_is_up():
    api = servicegroup.API(service_down_time=60)
    now = timeutils.utcnow()
    assert api.service_is_up(_service(last_seen_up=now))
    assert api.service_is_up(_service(
        last_seen_up=now - datetime.timedelta(seconds=59)))


def test_stale_heartbeat_is_down():
    api = servicegroup.API(service_down_time=60)
    old = timeutils.utcnow() - datetime.timedelta(seconds=61)
    assert not api.service_is_up(_service(last_seen_up=old))


def test_forced_down_wins_over_fresh_heartbeat():
    api = servicegroup.API(service_down_time=60)
    service = _service(last_seen_up=timeutils.utcnow())
    service.forced_down = True
    assert not api.service_is_up(service)


def test_falls_back_to_updated_then_created_at():
    api = servicegroup.API(service_down_time=60)
    now = timeutils.utcnow()
    old = now - datetime.timedelta(hours=1)
    assert api.service_is_up(_service(last_seen_up=None, updated_at=now,
                                      created_at=old))
    assert not api.service_is_up(_service(last_seen_up=None,
                                          updated_at=None, created_at=old))
    assert not api.service_is_up(_service(last_seen_up=None))


def test_accepts_plain_dicts_and_naive_times():
    api = servicegroup.API(service_down_time=10)
    naive_now = timeutils.utcnow().replace(tzinfo=None)
    assert api.service_is_up({'last_seen_up': naive_now,
                              'forced_down': False})
    assert not api.service_is_up(
        {'last_seen_up': naive_now - datetime.timedelta(seconds=30)})


def test_clock_skew_in_the_future_counts_as_down_when_large():
    api = servicegroup.API(service_down_time=10)
    future = timeutils.utcnow() + datetime.timedelta(seconds=120)
    assert not api.service_is_up(_service(last_seen_up=future))
