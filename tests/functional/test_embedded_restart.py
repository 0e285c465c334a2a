"""A restarted embedded cloud finds everything it had, and adds nothing."""

import shutil
import tempfile

from tests.functional import fixtures


def test_restart_keeps_servers_flavors_images_and_networks():
    state_dir = tempfile.mkdtemp(prefix='nc_func_restart_')
    first = second = None
    try:
        first = fixtures.TestCloud(state_dir=state_dir).start()
        api = first.admin_api
        api.post('/flavors', {'flavor': {
            'name': 'custom.one', 'ram': 256, 'vcpus': 1, 'disk': 1}},
            expected=200)
        server = api.create_server(name='survivor')
        flavors = sorted(f['name'] for f in api.get_flavors())
        images = sorted(i['id'] for i in api.get_images())
        networks = sorted(n['id'] for n in api.get_networks())
        first.stop()
        first = None

        second = fixtures.TestCloud(state_dir=state_dir).start()
        api = second.admin_api
        assert sorted(f['name'] for f in api.get_flavors()) == flavors
        assert sorted(i['id'] for i in api.get_images()) == images
        assert sorted(n['id'] for n in api.get_networks()) == networks
        back = api.get_server(server['id'])
        assert back['name'] == 'survivor'
        # The fake hypervisor's guest came back with it: still running.
        assert back['status'] == 'ACTIVE'
        assert back['OS-EXT-SRV-ATTR:host'] == \
            server['OS-EXT-SRV-ATTR:host']
        api.delete_server_and_wait(server['id'])
    finally:
        for cloud in (first, second):
            if cloud is not None:
                cloud.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
