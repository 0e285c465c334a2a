"""``nova-clone bench`` against the in-process cloud, as a user runs it."""

import argparse
import io
import json
import os
import contextlib

from nova_clone import bench


def _run(cloud, *extra):
    """bench.run on the in-process cloud: (exit code, the JSON report)."""
    clouds_yaml = os.path.join(cloud.state_dir, 'bench-clouds.yaml')
    cloud.cloud.write_clouds_yaml(path=clouds_yaml)
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    names = cloud.cloud.seed_names
    args = parser.parse_args([
        '--cloud', 'nova-clone', '--os-client-config-file', clouds_yaml,
        '--flavor', names['flavor'], '--image', names['image'],
        '--network', names['network'], '--timeout', '60'] + list(extra))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = bench.run(args)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1, lines
    return rc, json.loads(lines[0])


def test_bench_boots_measures_and_cleans_up(cloud, admin_api):
    rc, report = _run(cloud, '--servers', '4', '--concurrency', '2')
    assert rc == 0, report
    assert report['active'] == 4 and report['errors'] == 0
    assert report['servers_per_second'] > 0
    assert report['list_detail_p50_ms'] <= report['list_detail_p95_ms']
    # Each server's POST-to-ACTIVE time fits inside the whole run.
    assert (0 < report['boot_latency_p50_s'] <=
            report['boot_latency_p95_s'] <= report['boot_seconds'])
    assert report['all_deleted'] is True
    assert 0 < report['max_host_share'] <= 1
    # Nothing of the run is left.
    left = [s for s in admin_api.get_servers(detail=False)
            if s['name'].startswith('bench-')]
    assert left == []


def test_bench_counts_a_failed_build_with_its_fault(cloud):
    fail = {host: 'fatal' for host in cloud.compute_hosts}
    with cloud.flags(fail_spawn=fail, group='fake_driver'):
        rc, report = _run(cloud, '--servers', '2', '--concurrency', '2')
    assert rc == 2
    assert report['active'] == 0 and report['errors'] == 2
    assert report['timeouts'] == 0
    assert report['boot_latency_p50_s'] is None  # no server became ACTIVE
    assert all('fail_spawn=fatal' in m for m in report['error_messages'])
    assert report['all_deleted'] is True


def test_bench_unknown_cloud_is_one_line_error(capsys, tmp_path):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    empty = tmp_path / 'clouds.yaml'
    empty.write_text('clouds: {}\n')
    args = parser.parse_args(['--cloud', 'nowhere', '--os-client-config-file',
                              str(empty), '--flavor', 'f', '--image', 'i',
                              '--network', 'n'])
    assert bench.run(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'nowhere' in err[0]


def test_bench_reports_a_refused_create_with_the_api_message(cloud,
                                                             admin_api):
    project = admin_api.project_id  # the clouds.yaml user's project
    quotas = '/os-quota-sets/%s' % project
    admin_api.put(quotas, {'quota_set': {'instances': 1}}, expected=200)
    try:
        rc, report = _run(cloud, '--servers', '2', '--concurrency', '1')
    finally:
        admin_api.delete(quotas, expected=202)
    assert rc == 2
    assert report['active'] == 1 and report['errors'] == 1
    assert report['error_messages'] == [
        'POST /servers answered 403: Quota exceeded for instances: '
        'Requested 1, but already used 1 of 1 instances']
    assert report['all_deleted'] is True


def test_bench_resize_storm_resizes_confirms_and_reports_the_rate(
        cloud, admin_api):
    rc, report = _run(cloud, '--servers', '3', '--concurrency', '2',
                      '--resize')
    assert rc == 0, report
    assert report['active'] == 3
    # From m1.tiny (512 MB, 1 vCPU, 1 GB) the smallest larger seeded
    # flavor: ds1G (1024 MB, 1 vCPU, 10 GB).
    assert report['resize_flavor'] == 'ds1G'
    assert (report['resized'], report['resize_errors']) == (3, 0)
    assert report['resizes_per_second'] > 0
    assert (0 < report['resize_latency_p50_s'] <=
            report['resize_latency_p95_s'] <= report['resize_seconds'])
    assert report['all_deleted'] is True
