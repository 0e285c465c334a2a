"""A flavor holding an extra spec stored unchecked before 2.86: a boot on
it is Nova's 400 at POST /servers, and nothing is built."""

import pytest

from tests.functional.api import apifixture as af


@pytest.fixture(scope='module')
def wired(bed):
    af.install_compute_api(bed)
    yield bed
    from nova_clone.api.controllers import servers
    servers.set_compute_api(None)


def _boot(client, flavor):
    return client.post('/servers', {'server': {
        'name': 'vm', 'imageRef': af.IMAGE_ID, 'flavorRef': flavor,
        'networks': 'none'}}, version='2.37')


def test_boot_on_flavor_with_bad_extra_spec_is_400(wired, admin, demo):
    made = admin.post('/flavors', {'flavor': {
        'name': 'evil', 'ram': 512, 'vcpus': 1, 'disk': 1, 'id': 'evil'}})
    assert made.status == 200, made
    # Before 2.86 nothing checks the value; from 2.86 it is refused.
    stored = admin.post('/flavors/evil/os-extra_specs', {
        'extra_specs': {'hw:cpu_policy': 'evil'}}, version='2.85')
    assert stored.status == 200, stored
    refused = admin.post('/flavors/evil/os-extra_specs', {
        'extra_specs': {'hw:cpu_policy': 'evil'}}, version='2.86')
    assert refused.status == 400, refused

    reply = _boot(demo, 'evil')
    assert reply.status == 400, reply
    message = reply.body['badRequest']['message']
    assert 'hw:cpu_policy' in message and 'evil' in message
    assert demo.get('/servers').body['servers'] == []
    assert wired.task_api.casts == []

    # A good value and a key the boot does not know both boot.
    admin.post('/flavors/evil/os-extra_specs', {'extra_specs': {
        'hw:cpu_policy': 'shared', 'hw:not_a_key': 'x'}}, version='2.85')
    assert _boot(demo, 'evil').status == 202
