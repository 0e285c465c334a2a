"""Key pair crypto: fingerprints of imported keys and generated keys."""

import base64
import datetime
import hashlib

from cryptography import exceptions as crypto_exc
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography import x509
from cryptography.x509 import oid

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


# Microsoft's User Principal Name, the identity WinRM certificates carry.
_UPN_OID = x509.ObjectIdentifier('1.3.6.1.4.1.311.20.2.3')
X509_VALID_DAYS = 3650


def _der_utf8(text):
    """``text`` as a DER UTF8String (an otherName's value is raw DER)."""
    data = text.encode()
    if len(data) < 0x80:
        length = bytes([len(data)])
    else:
        size = len(data).to_bytes((len(data).bit_length() + 7) // 8, 'big')
        length = bytes([0x80 | len(size)]) + size
    return b'\x0c' + length + data


def generate_x509_pair(user_id, bits=2048):
    """(private PEM, certificate PEM, fingerprint) of a new self-signed
    client certificate for ``user_id`` (a WinRM-style x509 keypair: CN is
    the user, its UPN user@localhost, usage client authentication)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    # X.509 caps a common name at 64 characters; the UPN keeps it whole.
    name = x509.Name([x509.NameAttribute(oid.NameOID.COMMON_NAME,
                                         user_id[:64])])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=X509_VALID_DAYS))
            .add_extension(x509.ExtendedKeyUsage(
                [oid.ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName([x509.OtherName(
                _UPN_OID, _der_utf8('%s@localhost' % user_id))]),
                critical=False)
            .sign(key, hashes.SHA256()))
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()).decode()
    certificate = cert.public_bytes(serialization.Encoding.PEM).decode()
    return private, certificate, x509_fingerprint(certificate)
