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
