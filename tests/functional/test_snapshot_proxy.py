"""/os-snapshots, the Cinder proxy (to 2.35), against the Cinder
stand-in's snapshots."""

from tests.functional.api import samples

V = '2.35'


def test_snapshot_create_list_show_delete(cloud, demo_api):
    vol = demo_api.post('/os-volumes', {'volume': {'size': 1}},
                        microversion=V, expected=200).json()['volume']
    body = samples.load('os-snapshots/snapshot-create-req.json')
    body['snapshot']['volume_id'] = vol['id']
    created = demo_api.post('/os-snapshots', body, microversion=V,
                            expected=200).json()
    samples.assert_matches('os-snapshots/snapshot-create-resp.json',
                           created)
    snap = created['snapshot']
    assert snap['volumeId'] == vol['id'] and snap['size'] == 1
    assert snap['displayName'] == 'snap-001'
    shown = demo_api.get('/os-snapshots/%s' % snap['id'],
                         microversion=V).json()
    samples.assert_matches('os-snapshots/snapshots-show-resp.json', shown)
    for path, sample in (('/os-snapshots', 'snapshots-list-resp.json'),
                         ('/os-snapshots/detail',
                          'snapshots-detail-resp.json')):
        listed = demo_api.get(path, microversion=V).json()
        assert snap['id'] in [s['id'] for s in listed['snapshots']]
        samples.assert_matches('os-snapshots/' + sample, listed)
    # The snapshot keeps its volume.
    assert demo_api.request('DELETE', '/os-volumes/%s' % vol['id'],
                            microversion=V).status_code == 400
    bad = dict(body['snapshot'], force='maybe')
    assert demo_api.request('POST', '/os-snapshots', {'snapshot': bad},
                            microversion=V).status_code == 400
    missing = dict(body['snapshot'], volume_id='no-such-volume')
    assert demo_api.request('POST', '/os-snapshots', {'snapshot': missing},
                            microversion=V).status_code == 404
    assert demo_api.request('GET', '/os-snapshots',
                            microversion='2.36').status_code == 404
    assert demo_api.request('DELETE', '/os-snapshots/%s' % snap['id'],
                            microversion=V).status_code == 202
    assert demo_api.request('GET', '/os-snapshots/%s' % snap['id'],
                            microversion=V).status_code == 404
    assert demo_api.request('DELETE', '/os-volumes/%s' % vol['id'],
                            microversion=V).status_code == 202


def test_assisted_volume_snapshots(cloud, demo_api, admin_api):
    from tests.functional.test_compute_flows import _volume_api
    from tests.functional.test_compute_flows import _wait_volume
    volume = _volume_api(cloud, demo_api, 'POST', '/volumes', {'volume': {
        'size': 1, 'imageRef': cloud.image_id}}, expected=202).json()[
        'volume']
    _wait_volume(cloud, demo_api, volume['id'], 'available')
    body = samples.load('os-assisted-volume-snapshots/snapshot-create-'
                        'assisted-req.json')
    body['snapshot']['volume_id'] = volume['id']
    # Not attached yet: nothing to snapshot.
    assert admin_api.request('POST', '/os-assisted-volume-snapshots', body
                             ).status_code == 400
    server = demo_api.create_server(imageRef='', block_device_mapping_v2=[{
        'uuid': volume['id'], 'source_type': 'volume',
        'destination_type': 'volume', 'boot_index': 0,
        'delete_on_termination': True}])
    _wait_volume(cloud, demo_api, volume['id'], 'in-use')
    assert demo_api.request('POST', '/os-assisted-volume-snapshots', body
                            ).status_code == 403
    reply = admin_api.post('/os-assisted-volume-snapshots', body,
                           expected=200).json()
    assert reply == {'snapshot': {
        'id': body['snapshot']['create_info']['id'],
        'volumeId': volume['id']}}
    samples.assert_matches('os-assisted-volume-snapshots/snapshot-create-'
                           'assisted-resp.json', reply)
    bad = dict(body['snapshot'], create_info={'type': 'raw'})
    assert admin_api.request('POST', '/os-assisted-volume-snapshots', {
        'snapshot': bad}).status_code == 400
    path = '/os-assisted-volume-snapshots/%s?delete_info=%s' % (
        body['snapshot']['create_info']['id'],
        '%7B%22volume_id%22%3A%20%22' + volume['id'] + '%22%7D')
    assert admin_api.request('DELETE', path).status_code == 204
    assert admin_api.request(
        'DELETE', '/os-assisted-volume-snapshots/x').status_code == 400
    demo_api.delete_server_and_wait(server['id'])
