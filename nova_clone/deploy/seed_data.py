"""What a fresh cloud starts with: flavors, an image, a network.

Everything is created through the services' own REST APIs as the admin
user would (so the data is exactly what the API would make), and only when
missing: a restart finds it and creates nothing.  ``nova-clone up`` seeds
all of it, ``nova-clone stack up`` too; the libvirt stack adds its guest
images and flavor with ``ensure_image`` and ``ensure_flavors``.
"""

import hashlib

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# DevStack's flavor set: (name, id, ram MiB, disk GiB, vcpus).
FLAVORS = [
    ('m1.tiny', '1', 512, 1, 1),
    ('m1.small', '2', 2048, 20, 1),
    ('m1.medium', '3', 4096, 40, 2),
    ('m1.large', '4', 8192, 80, 4),
    ('m1.xlarge', '5', 16384, 160, 8),
    ('m1.nano', '42', 128, 1, 1),
    ('m1.micro', '84', 192, 1, 1),
    ('cirros256', 'c1', 256, 1, 1),
    ('ds512M', 'd1', 512, 5, 1),
    ('ds1G', 'd2', 1024, 10, 1),
    ('ds2G', 'd3', 2048, 10, 2),
    ('ds4G', 'd4', 4096, 20, 4),
]

IMAGE_NAME = 'tiny-raw'
IMAGE_SIZE = 8192
NETWORK_NAME = 'private'
SUBNET_NAME = 'private-subnet'
SUBNET_CIDR = '10.0.0.0/24'

NAMES = {'image': IMAGE_NAME, 'network': NETWORK_NAME,
         'subnet': SUBNET_NAME, 'flavor': 'm1.tiny'}


def image_bytes():
    """A small, deterministic raw disk (the fake driver never boots it)."""
    block = hashlib.sha256(b'nova-clone tiny image').digest()
    return (block * (IMAGE_SIZE // len(block) + 1))[:IMAGE_SIZE]


class SeedError(RuntimeError):
    pass


def check(resp, what):
    """``resp``, or SeedError naming ``what`` failed."""
    if resp.status_code >= 400:
        raise SeedError('%s failed: HTTP %s %s' % (
            what, resp.status_code, resp.text[:300]))
    return resp


def seed(session, urls):
    """Create the default flavors, image and network where missing.

    ``session`` is an admin keystoneauth1 session; ``urls`` maps service
    types to endpoints.  Returns the names of what a user boots with.
    """
    from concurrent import futures
    # Independent services: seed them side by side to start faster.
    with futures.ThreadPoolExecutor(max_workers=4) as pool:
        jobs = [pool.submit(ensure_flavors, session, urls['compute'], FLAVORS,
                            pool),
                pool.submit(_seed_image, session, urls['image']),
                pool.submit(_seed_network, session, urls['network'])]
        for job in jobs:
            job.result()
    return dict(NAMES)


def _get(session, url, **kw):
    return session.get(url, raise_exc=False, **kw)


def _post(session, url, body, what):
    return check(session.post(url, json=body, raise_exc=False), what)


def ensure_flavors(session, compute_url, flavors, pool=None):
    """Create those of ``flavors`` ((name, id, ram MiB, disk GiB, vcpus)
    tuples) whose name or id no flavor has; with ``pool``, half of them
    from one of its threads."""
    resp = check(_get(session, compute_url + '/flavors/detail',
                      params={'is_public': 'None'}), 'listing flavors')
    have = {f['name'] for f in resp.json().get('flavors', [])}
    have |= {f['id'] for f in resp.json().get('flavors', [])}

    def create(name, flavorid, ram, disk, vcpus):
        _post(session, compute_url + '/flavors', {'flavor': {
            'name': name, 'id': flavorid, 'ram': ram, 'disk': disk,
            'vcpus': vcpus}}, 'creating flavor %s' % name)
        LOG.info('Created flavor %s', name)

    missing = [f for f in flavors if f[0] not in have and f[1] not in have]
    if pool is None:
        for flavor in missing:
            create(*flavor)
        return
    # Two at a time next to the image and network seeding.
    half = len(missing) // 2
    other = pool.submit(lambda: [create(*f) for f in missing[half:]])
    for flavor in missing[:half]:
        create(*flavor)
    other.result()


def _seed_image(session, image_url):
    return ensure_image(session, image_url, IMAGE_NAME, image_bytes(),
                        disk_format='raw', container_format='bare',
                        min_disk=0, min_ram=0)


def ensure_image(session, image_url, name, data, **fields):
    """The id of active public image ``name``; created with ``fields``
    and its ``data`` (bytes or a file) uploaded where missing."""
    resp = check(_get(session, image_url + '/v2/images',
                      params={'name': name}), 'listing images')
    images = resp.json().get('images', [])
    active = [i for i in images if i.get('status') == 'active']
    if active:
        return active[0]['id']
    if images:
        image_id = images[0]['id']
    else:
        image_id = _post(session, image_url + '/v2/images',
                         dict(fields, name=name, visibility='public'),
                         'creating image %s' % name).json()['id']
    check(session.put(
        image_url + '/v2/images/%s/file' % image_id, data=data,
        headers={'Content-Type': 'application/octet-stream'},
        raise_exc=False), 'uploading image %s' % name)
    LOG.info('Created image %s (%s)', name, image_id)
    return image_id


def _seed_network(session, network_url):
    base = network_url + '/v2.0'
    resp = check(_get(session, base + '/networks',
                      params={'name': NETWORK_NAME}), 'listing networks')
    networks = resp.json().get('networks', [])
    if networks:
        network_id = networks[0]['id']
    else:
        network_id = _post(session, base + '/networks', {'network': {
            'name': NETWORK_NAME, 'shared': True, 'admin_state_up': True}},
            'creating network').json()['network']['id']
        LOG.info('Created network %s (%s)', NETWORK_NAME, network_id)
    resp = check(_get(session, base + '/subnets',
                      params={'network_id': network_id}), 'listing subnets')
    if not resp.json().get('subnets'):
        _post(session, base + '/subnets', {'subnet': {
            'name': SUBNET_NAME, 'network_id': network_id,
            'ip_version': 4, 'cidr': SUBNET_CIDR, 'enable_dhcp': True}},
            'creating subnet')
        LOG.info('Created subnet %s %s', SUBNET_NAME, SUBNET_CIDR)
    return network_id
