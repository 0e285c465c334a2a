"""/images (the Glance proxy, to 2.35) and image metadata (to 2.38)
against the in-process cloud's Glance stand-in."""

import pytest

from tests.functional.api import samples

V = '2.35'


@pytest.fixture
def image(cloud, demo_api):
    glance = cloud.urls['image']
    resp = demo_api.http.post(glance + '/v2/images', json={
        'name': 'proxy-img', 'disk_format': 'raw',
        'container_format': 'bare', 'architecture': 'x86_64',
        'auto_disk_config': 'True'},
        headers={'X-Auth-Token': demo_api.token})
    assert resp.status_code == 201, resp.text
    yield resp.json()
    demo_api.http.delete(glance + '/v2/images/%s' % resp.json()['id'],
                         headers={'X-Auth-Token': demo_api.token})


def test_list_detail_show_delete(cloud, demo_api, image):
    listed = demo_api.get('/images', microversion=V).json()
    assert image['id'] in [i['id'] for i in listed['images']]
    samples.assert_matches('images/images-list-get-resp.json', listed)
    detail = demo_api.get('/images/detail', microversion=V).json()
    # The sample's first image has no auto_disk_config: compare the seed.
    samples.assert_matches('images/images-details-get-resp.json', {
        'images': [i for i in detail['images'] if i['id'] != image['id']]},
        free=('images[].metadata',))
    shown = demo_api.get('/images/%s' % image['id'],
                         microversion=V).json()['image']
    assert shown['status'] == 'SAVING' and shown['progress'] == 25
    assert shown['OS-DCF:diskConfig'] == 'AUTO'
    assert shown['metadata']['architecture'] == 'x86_64'
    assert [link['rel'] for link in shown['links']] == [
        'self', 'bookmark', 'alternate']
    samples.assert_matches('images/image-get-resp.json', {'image': shown},
                           free=('image.metadata',))
    named = demo_api.get('/images?name=proxy-img', microversion=V).json()
    assert [i['id'] for i in named['images']] == [image['id']]
    # Filtered by the status this API shows, not Glance's lower case.
    active = demo_api.get('/images/detail?status=ACTIVE',
                          microversion=V).json()['images']
    assert active and image['id'] not in [i['id'] for i in active]
    assert {i['status'] for i in active} == {'ACTIVE'}
    assert demo_api.request('GET', '/images',
                            microversion='2.36').status_code == 404
    assert demo_api.request('GET', '/images/nope',
                            microversion=V).status_code == 404
    assert demo_api.request('DELETE', '/images/%s' % image['id'],
                            microversion=V).status_code == 204
    assert demo_api.request('GET', '/images/%s' % image['id'],
                            microversion=V).status_code == 404


def test_image_metadata(cloud, demo_api, image):
    path = '/images/%s/metadata' % image['id']
    got = demo_api.get(path, microversion='2.38').json()
    assert got['metadata']['architecture'] == 'x86_64'
    samples.assert_matches('images/image-metadata-get-resp.json', got,
                           free=('metadata',))
    posted = demo_api.post(path, samples.load(
        'images/image-metadata-post-req.json'), microversion='2.38',
        expected=200).json()
    assert posted['metadata']['Label'] == 'UpdatedImage'
    assert posted['metadata']['architecture'] == 'x86_64'
    put = demo_api.put(path + '/auto_disk_config', samples.load(
        'images/image-meta-key-put-req.json'), microversion='2.38',
        expected=200).json()
    assert put == {'meta': {'auto_disk_config': 'False'}}
    assert demo_api.get(path + '/Label', microversion='2.38').json() == {
        'meta': {'Label': 'UpdatedImage'}}
    mismatch = demo_api.request('PUT', path + '/other', {
        'meta': {'Label': 'x'}}, microversion='2.38')
    assert mismatch.status_code == 400
    replaced = demo_api.put(path, {'metadata': {'only': 'this'}},
                            microversion='2.38', expected=200).json()
    assert replaced == {'metadata': {'only': 'this'}}
    assert demo_api.request('DELETE', path + '/only',
                            microversion='2.38').status_code == 204
    assert demo_api.request('DELETE', path + '/only',
                            microversion='2.38').status_code == 404
    assert demo_api.request('GET', path,
                            microversion='2.39').status_code == 404
