"""Compute API microversions: parsing, comparing, and response headers."""

import re

import microversion_parse

from nova_clone import exception
from nova_clone import version

SERVICE_TYPE = 'compute'
HEADER = 'OpenStack-API-Version'
LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'
_VERSION_RE = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')
ENVIRON_KEY = 'nova.api_version_request'


class APIVersionRequest(object):
    """A compute microversion such as 2.53 (comparable as a tuple)."""

    def __init__(self, version_string=None):
        self.ver_major = 0
        self.ver_minor = 0
        if version_string is not None:
            match = _VERSION_RE.match(version_string)
            if not match:
                raise exception.InvalidAPIVersionString(
                    version=version_string)
            self.ver_major = int(match.group(1))
            self.ver_minor = int(match.group(2))

    def _key(self):
        return (self.ver_major, self.ver_minor)

    def is_null(self):
        return self._key() == (0, 0)

    def __lt__(self, other):
        return self._key() < _coerce(other)._key()

    def __le__(self, other):
        return self._key() <= _coerce(other)._key()

    def __gt__(self, other):
        return self._key() > _coerce(other)._key()

    def __ge__(self, other):
        return self._key() >= _coerce(other)._key()

    def __eq__(self, other):
        return self._key() == _coerce(other)._key()

    def __hash__(self):
        return hash(self._key())

    def matches(self, min_version=None, max_version=None):
        """True when this version lies within [min_version, max_version]."""
        if min_version is not None and self < min_version:
            return False
        if max_version is not None and self > max_version:
            return False
        return True

    def get_string(self):
        return '%d.%d' % self._key()

    __str__ = get_string

    def __repr__(self):
        return '<APIVersionRequest %s>' % self.get_string()


# Parsed version strings: views compare the request's version with the
# same few literals ('2.47', '2.98'...) many times per server.
_PARSED = {}


def _coerce(value):
    if isinstance(value, APIVersionRequest):
        return value
    parsed = _PARSED.get(value)
    if parsed is None:
        parsed = APIVersionRequest(value)
        if len(_PARSED) < 1000:  # literals only in practice; stay bounded
            _PARSED[value] = parsed
    return parsed


MIN_VERSION = APIVersionRequest(version.MIN_API_VERSION)
MAX_VERSION = APIVersionRequest(version.MAX_API_VERSION)


def parse_headers(headers):
    """The microversion a request asks for (MIN_VERSION when it names none).

    Raises InvalidAPIVersionString (400) for a malformed value and
    InvalidGlobalAPIVersion (406) for one outside [MIN, MAX].
    """
    wanted = microversion_parse.get_version(
        headers, service_type=SERVICE_TYPE, legacy_headers=[LEGACY_HEADER])
    if wanted is None:
        return MIN_VERSION
    wanted = wanted.strip()
    if wanted.lower() == 'latest':
        return MAX_VERSION
    requested = APIVersionRequest(wanted)
    if not requested.matches(MIN_VERSION, MAX_VERSION):
        raise exception.InvalidGlobalAPIVersion(
            req_ver=requested.get_string(),
            min_ver=MIN_VERSION.get_string(),
            max_ver=MAX_VERSION.get_string())
    return requested


def response_headers(api_version):
    """Headers every versioned response carries."""
    ver = api_version.get_string()
    return [
        (HEADER, '%s %s' % (SERVICE_TYPE, ver)),
        (LEGACY_HEADER, ver),
        ('Vary', '%s, %s' % (HEADER, LEGACY_HEADER)),
    ]


def get(req):
    """The APIVersionRequest stored on a request by the dispatcher."""
    return req.environ.get(ENVIRON_KEY, MIN_VERSION)


def is_supported(req, min_version=None, max_version=None):
    return get(req).matches(min_version, max_version)
