"""/os-volumes, the Cinder proxy (to 2.35), against the Cinder stand-in."""

from tests.functional.api import samples

V = '2.35'


def test_volume_create_list_show_delete(cloud, demo_api):
    body = samples.load('os-volumes/os-volumes-post-req.json')
    body['volume']['size'] = 1
    body['volume'].pop('availability_zone')
    created = demo_api.post('/os-volumes', body, microversion=V,
                            expected=200).json()
    samples.assert_matches('os-volumes/os-volumes-post-resp.json', created,
                           free=('volume.attachments',))
    vol = created['volume']
    assert vol['displayName'] == 'Volume Name' and vol['size'] == 1
    assert vol['attachments'] == [{}]
    shown = demo_api.get('/os-volumes/%s' % vol['id'],
                         microversion=V).json()
    assert shown['volume']['id'] == vol['id']
    for path, sample in (('/os-volumes', 'os-volumes-index-resp.json'),
                         ('/os-volumes/detail',
                          'os-volumes-detail-resp.json')):
        listed = demo_api.get(path, microversion=V).json()
        assert vol['id'] in [v['id'] for v in listed['volumes']]
        samples.assert_matches('os-volumes/' + sample, listed,
                               free=('volumes[].attachments',))
    assert demo_api.request('POST', '/os-volumes', {'volume': {}},
                            microversion=V).status_code == 400
    assert demo_api.request('GET', '/os-volumes',
                            microversion='2.36').status_code == 404
    assert demo_api.request('DELETE', '/os-volumes/%s' % vol['id'],
                            microversion=V).status_code == 202
    assert demo_api.request('GET', '/os-volumes/no-such-volume',
                            microversion=V).status_code == 404


def test_volume_and_snapshot_lists_page_by_offset(cloud, demo_api):
    for path in ('/os-volumes', '/os-snapshots'):
        for offset in ('x', '-1'):
            resp = demo_api.request('GET', path + '?offset=' + offset,
                                    microversion=V)
            assert resp.status_code == 400, (path, resp.text)
            assert 'offset param must be' in \
                resp.json()['badRequest']['message']
        resp = demo_api.request('GET', path + '?offset=5&limit=1',
                                microversion=V)
        assert resp.status_code == 200, resp.text
