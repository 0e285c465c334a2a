"""/os-simple-tenant-usage: usage of running and deleted servers, per
project, with 2.40 paging."""

import datetime

import pytest
from oslo_utils import timeutils

from tests.functional.api import cellrecords
from tests.functional.api import samples

OTHER = 'b3d6c0a1a5a34b52a2b7f0f4d38a1c11'


@pytest.fixture(scope='module')
def usage(bed):
    demo = bed.client()
    hour_ago = timeutils.utcnow() - datetime.timedelta(hours=1)
    running, _a, _r = cellrecords.add_instance(bed, demo.project, demo.user,
                                               host='host1', name='runs')
    running.launched_at = hour_ago
    running.save()
    gone, _a, _r = cellrecords.add_instance(bed, OTHER, demo.user,
                                            host='host1', name='gone')
    gone.launched_at = hour_ago
    gone.terminated_at = hour_ago + datetime.timedelta(minutes=30)
    gone.vm_state = 'deleted'
    gone.save()
    gone.destroy()
    start = (hour_ago - datetime.timedelta(hours=1)).strftime(
        '%Y-%m-%dT%H:%M:%S')
    return {'running': running, 'gone': gone, 'project': demo.project,
            'query': 'start=%s' % start}


def _by_tenant(body):
    return {u['tenant_id']: u for u in body['tenant_usages']}


def test_index_counts_running_and_deleted(usage, admin):
    reply = admin.get('/os-simple-tenant-usage?detailed=1&%s'
                      % usage['query'])
    assert reply.status == 200
    tenants = _by_tenant(reply.body)
    ours = tenants[usage['project']]
    assert 0.99 < ours['total_hours'] < 1.01
    assert ours['total_memory_mb_usage'] == pytest.approx(
        512 * ours['total_hours'])
    server = [s for s in ours['server_usages']
              if s['instance_id'] == usage['running'].uuid][0]
    assert server['state'] == 'active' and server['ended_at'] is None
    assert 3590 < server['uptime'] < 3700
    other = tenants[OTHER]
    assert other['total_hours'] == pytest.approx(0.5)
    gone = other['server_usages'][0]
    assert gone['state'] == 'terminated' and gone['uptime'] == 1800
    samples.assert_matches(
        'os-simple-tenant-usage/simple-tenant-usage-get-detail.json',
        {'tenant_usages': [ours]})
    plain = admin.get('/os-simple-tenant-usage?%s' % usage['query'])
    assert 'server_usages' not in _by_tenant(plain.body)[OTHER]
    samples.assert_matches('os-simple-tenant-usage/simple-tenant-usage-get'
                           '.json', plain.body)


def test_show_own_project_and_policy(usage, admin, demo):
    reply = demo.get('/os-simple-tenant-usage/%s?%s' % (
        usage['project'], usage['query']))
    assert reply.status == 200
    assert [s['name'] for s in reply.body['tenant_usage'][
        'server_usages']] == ['runs']
    samples.assert_matches('os-simple-tenant-usage/simple-tenant-usage-get-'
                           'specific.json', reply.body)
    assert demo.get('/os-simple-tenant-usage').status == 403
    assert demo.get('/os-simple-tenant-usage/%s' % OTHER).status == 403
    # Nothing ran in the period: an empty usage.
    reply = admin.get('/os-simple-tenant-usage/%s?start=2001-01-01T00:00:00'
                      '&end=2001-01-02T00:00:00' % usage['project'])
    assert reply.body == {'tenant_usage': {}}


def test_paging_from_240(usage, admin):
    first = admin.get('/os-simple-tenant-usage?detailed=1&limit=1&%s'
                      % usage['query'], version='2.40')
    assert first.status == 200
    link = first.body['tenant_usages_links'][0]
    assert link['rel'] == 'next' and 'marker=' in link['href']
    samples.assert_matches(
        'os-simple-tenant-usage/v2.40/simple-tenant-usage-get-detail.json',
        first.body)
    seen = first.body['tenant_usages'][0]['server_usages'][0]
    second = admin.get('/os-simple-tenant-usage?detailed=1&limit=1&%s'
                       '&marker=%s' % (usage['query'], seen['instance_id']),
                       version='2.40')
    assert second.status == 200
    later = [s['instance_id'] for u in second.body['tenant_usages']
             for s in u['server_usages']]
    assert seen['instance_id'] not in later and len(later) == 1
    # Before 2.40 limit is not a parameter: everything, no links.
    old = admin.get('/os-simple-tenant-usage?limit=1&%s' % usage['query'],
                    version='2.39')
    assert 'tenant_usages_links' not in old.body
    assert len(old.body['tenant_usages']) >= 2
    bad = admin.get('/os-simple-tenant-usage?marker=nope', version='2.40')
    assert bad.status == 400


def test_bad_periods_and_parameters(usage, admin):
    assert admin.get('/os-simple-tenant-usage?start=yesterday'
                     ).status == 400
    assert admin.get('/os-simple-tenant-usage?start=2030-01-01T00:00:00'
                     '&end=2029-01-01T00:00:00').status == 400
    assert admin.get('/os-simple-tenant-usage?foo=1',
                     version='2.75').status == 400
    assert admin.get('/os-simple-tenant-usage?foo=1',
                     version='2.74').status == 200


def test_link_keeps_the_query(usage, admin):
    reply = admin.get('/os-simple-tenant-usage/%s?limit=1&%s' % (
        usage['project'], usage['query']), version='2.40')
    href = reply.body['tenant_usage_links'][0]['href']
    assert '/os-simple-tenant-usage/%s?' % usage['project'] in href
    assert 'start=' in href
