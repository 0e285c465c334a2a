"""Key pair crypto: fingerprints of imported keys and generated keys."""

import base64
import hashlib

from cryptography import exceptions as crypto_exc
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography import x509

from nova_clone import exception


def _colon_hex(digest):
    return ':'.join('%02x' % b for b in digest)


def ssh_fingerprint(public_key):
    """MD5 fingerprint of an OpenSSH public key, as ssh-keygen -l -E md5."""
    try:
        serialization.load_ssh_public_key(public_key.strip().encode())
        blob = base64.b64decode(public_key.split()[1])
    except (ValueError, IndexError, TypeError,
            crypto_exc.UnsupportedAlgorithm):
        raise exception.InvalidKeypair(
            reason='failed to generate fingerprint')
    return _colon_hex(hashlib.md5(blob, usedforsecurity=False).digest())


def x509_fingerprint(certificate):
    try:
        cert = x509.load_pem_x509_certificate(certificate.encode())
    except ValueError:
        raise exception.InvalidKeypair(
            reason='failed to generate X509 fingerprint. Error message: '
                   'invalid certificate')
    return _colon_hex(cert.fingerprint(hashes.SHA1()))


def fingerprint(public_key, key_type='ssh'):
    if key_type == 'x509':
        return x509_fingerprint(public_key)
    return ssh_fingerprint(public_key)


def generate_key_pair(bits=2048):
    """(private PEM, public OpenSSH, fingerprint) of a new RSA key."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH,
        serialization.PublicFormat.OpenSSH).decode()
    public = '%s Generated-by-Nova\n' % public
    return private, public, ssh_fingerprint(public)
