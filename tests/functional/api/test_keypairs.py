"""/os-keypairs across its microversions."""

import pytest

from tests.functional.api import samples

PUBLIC_KEY = (
    'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDx8nkQv/zgGgB4rMYmIf+6A4l6Rr+o/6l'
    'HBQdW5aYd44bd8JttDCE/F/pNRr0lRE+PiqSPO8nDPHw0010JeMH9gYgnnFlyY3/OcJ02RhI'
    'PyyxYpv9FhY+2YiUkpwFOcLImyrxEsYXpD/0d3ac30bNH6Sw9JD9UZHYcpSxsIbECHw== '
    'Generated-by-Nova')
FINGERPRINT = '1e:2c:9b:56:79:4b:45:77:f9:ca:7a:98:2c:b0:d5:3c'


@pytest.fixture
def user(bed, request):
    return bed.client(user='kp-%s' % request.node.name[-20:].replace(
        '[', '').replace(']', ''))


def test_generate_before_292(user):
    reply = user.post('/os-keypairs', {'keypair': {'name': 'gen'}})
    assert reply.status == 200
    kp = reply.body['keypair']
    assert kp['private_key'].startswith('-----BEGIN RSA PRIVATE KEY-----')
    assert kp['public_key'].startswith('ssh-rsa ')
    assert kp['user_id'] == user.user
    assert 'type' not in kp
    if samples.available():
        samples.assert_matches('os-keypairs/keypairs-post-resp.json',
                               reply.body)


def test_import_computes_fingerprint_and_201_from_22(user):
    reply = user.post('/os-keypairs', {'keypair': {
        'name': 'imported', 'public_key': PUBLIC_KEY, 'type': 'ssh'}},
        version='2.2')
    assert reply.status == 201
    assert reply.body['keypair']['fingerprint'] == FINGERPRINT
    assert reply.body['keypair']['type'] == 'ssh'
    if samples.available():
        samples.assert_matches('os-keypairs/v2.2/keypairs-import-post-resp.json',
                               reply.body)
    shown = user.get('/os-keypairs/imported', version='2.2')
    assert shown.status == 200
    if samples.available():
        samples.assert_matches('os-keypairs/v2.2/keypairs-get-resp.json',
                               shown.body)
    listed = user.get('/os-keypairs', version='2.2')
    if samples.available():
        samples.assert_matches('os-keypairs/v2.2/keypairs-list-resp.json',
                               listed.body)
    assert user.delete('/os-keypairs/imported', version='2.2').status == 204
    missing = user.get('/os-keypairs/imported')
    assert missing.status == 404
    assert missing.body['itemNotFound']['message'] == (
        'Keypair imported not found for user %s' % user.user)


def test_292_requires_public_key_and_allows_new_chars(user):
    reply = user.post('/os-keypairs', {'keypair': {'name': 'nokey'}},
                      version='2.92')
    assert reply.status == 400
    name = 'me.and.myself@this.nice.domain.com mooh.'
    reply = user.post('/os-keypairs', {'keypair': {
        'name': name, 'public_key': PUBLIC_KEY}}, version='2.92')
    assert reply.status == 201, reply
    reply = user.post('/os-keypairs', {'keypair': {
        'name': 'a@b', 'public_key': PUBLIC_KEY}}, version='2.91')
    assert reply.status == 400


def test_bad_key_duplicate_and_delete_codes(user):
    bad = user.post('/os-keypairs', {'keypair': {
        'name': 'bad', 'public_key': 'not a key'}})
    assert bad.status == 400
    assert bad.body['badRequest']['message'] == (
        'Keypair data is invalid: failed to generate fingerprint')
    assert user.post('/os-keypairs', {'keypair': {
        'name': 'dup', 'public_key': PUBLIC_KEY}}).status == 200
    dup = user.post('/os-keypairs', {'keypair': {
        'name': 'dup', 'public_key': PUBLIC_KEY}})
    assert dup.status == 409
    assert dup.body['conflictingRequest']['message'] == \
        "Key pair 'dup' already exists."
    assert user.delete('/os-keypairs/dup').status == 202
    assert user.delete('/os-keypairs/dup').status == 404


def test_paging_from_235(user):
    for i in range(3):
        user.post('/os-keypairs', {'keypair': {
            'name': 'page%d' % i, 'public_key': PUBLIC_KEY}})
    page = user.get('/os-keypairs?limit=2', version='2.35')
    assert len(page.body['keypairs']) == 2
    assert 'marker=page1' in page.body['keypairs_links'][0]['href']
    rest = user.get('/os-keypairs?marker=page1', version='2.35')
    assert [k['keypair']['name'] for k in rest.body['keypairs']] == ['page2']
    # Before 2.35 paging parameters are ignored.
    assert len(user.get('/os-keypairs?limit=1').body['keypairs']) == 3


def test_other_users_keypairs(bed, admin, user):
    user.post('/os-keypairs', {'keypair': {'name': 'mine',
                                           'public_key': PUBLIC_KEY}})
    other = bed.client(user='someone-else')
    assert other.get('/os-keypairs/mine').status == 404
    forbidden = other.get('/os-keypairs?user_id=%s' % user.user,
                          version='2.10')
    assert forbidden.status == 403
    seen = admin.get('/os-keypairs/mine?user_id=%s' % user.user,
                     version='2.10')
    assert seen.status == 200
    assert seen.body['keypair']['user_id'] == user.user
    made = admin.post('/os-keypairs', {'keypair': {
        'name': 'for-user', 'public_key': PUBLIC_KEY,
        'user_id': user.user}}, version='2.10')
    assert made.status == 201
    assert made.body['keypair']['user_id'] == user.user


def test_keypair_quota(bed, admin):
    user = bed.client(user='quota-kp-user')
    reply = admin.put('/os-quota-sets/%s?user_id=%s' % (user.project,
                                                        user.user),
                      {'quota_set': {'key_pairs': 1}})
    assert reply.status == 200, reply
    assert user.post('/os-keypairs', {'keypair': {
        'name': 'one', 'public_key': PUBLIC_KEY}}).status == 200
    over = user.post('/os-keypairs', {'keypair': {
        'name': 'two', 'public_key': PUBLIC_KEY}})
    assert over.status == 403
    assert over.body['forbidden']['message'] == \
        'Quota exceeded, too many key pairs.'


def test_generate_x509_from_22(user):
    """Before 2.92 a keypair of type x509 without a public key gets a new
    self-signed client certificate, its private key and its SHA1
    fingerprint; show and list give the certificate back."""
    from cryptography.hazmat.primitives import hashes
    from cryptography import x509

    reply = user.post('/os-keypairs', {'keypair': {
        'name': 'winrm', 'type': 'x509'}}, version='2.2')
    assert reply.status == 201, reply.body
    kp = reply.body['keypair']
    assert kp['type'] == 'x509'
    assert kp['private_key'].startswith('-----BEGIN PRIVATE KEY-----')
    cert = x509.load_pem_x509_certificate(kp['public_key'].encode())
    assert cert.subject.rfc4514_string() == 'CN=%s' % user.user
    assert kp['fingerprint'] == ':'.join(
        '%02x' % b for b in cert.fingerprint(hashes.SHA1()))
    shown = user.get('/os-keypairs/winrm', version='2.2').body['keypair']
    assert (shown['type'], shown['public_key'], shown['fingerprint']) == (
        'x509', kp['public_key'], kp['fingerprint'])
    assert 'private_key' not in shown
    # From 2.92 keys are imported only: no generation of either type.
    reply = user.post('/os-keypairs', {'keypair': {
        'name': 'winrm2', 'type': 'x509'}}, version='2.92')
    assert reply.status == 400
