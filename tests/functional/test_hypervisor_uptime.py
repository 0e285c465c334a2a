"""GET /os-hypervisors/{id}/uptime asks the hypervisor's compute (RPC)."""


def test_uptime_comes_from_the_compute(cloud, admin_api):
    hypervisors = admin_api.get('/os-hypervisors', microversion='2.1').json()[
        'hypervisors']
    assert hypervisors
    for hyper in hypervisors:
        shown = admin_api.get('/os-hypervisors/%s/uptime' % hyper['id'],
                              microversion='2.1').json()['hypervisor']
        assert shown['hypervisor_hostname'] == hyper['hypervisor_hostname']
        # The fake hypervisor counts seconds since its compute started.
        assert shown['uptime'].endswith(' seconds'), shown
    gone = admin_api.request('GET', '/os-hypervisors/%s/uptime'
                             % hypervisors[0]['id'], microversion='2.88')
    assert gone.status_code == 404
