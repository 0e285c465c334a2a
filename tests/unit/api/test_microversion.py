"""Microversion parsing and comparison."""

import pytest

from nova_clone.api import microversion
from nova_clone import exception


def _parse(headers):
    return microversion.parse_headers(headers)


def test_no_header_means_minimum():
    assert _parse({}).get_string() == '2.1'


def test_standard_header():
    assert _parse({'OpenStack-API-Version': 'compute 2.53'}) == '2.53'


def test_legacy_header():
    assert _parse({'X-OpenStack-Nova-API-Version': '2.10'}) == '2.10'


def test_latest_is_maximum():
    assert _parse({'OpenStack-API-Version': 'compute latest'}) == '2.104'


def test_other_service_is_ignored():
    assert _parse({'OpenStack-API-Version': 'placement 1.30'}) == '2.1'


@pytest.mark.parametrize('value', ['2.105', '3.0', '1.1'])
def test_out_of_range_is_406(value):
    with pytest.raises(exception.InvalidGlobalAPIVersion) as info:
        _parse({'OpenStack-API-Version': 'compute %s' % value})
    assert info.value.code == 406
    assert 'Minimum is 2.1 and maximum is 2.104' in str(info.value)


@pytest.mark.parametrize('value', ['2.x', '2', '2.01', 'abc'])
def test_malformed_is_400(value):
    with pytest.raises(exception.InvalidAPIVersionString) as info:
        _parse({'OpenStack-API-Version': 'compute %s' % value})
    assert info.value.code == 400


def test_ordering_is_numeric():
    v = microversion.APIVersionRequest
    assert v('2.10') > v('2.9')
    assert v('2.100') > v('2.99')
    assert v('2.53').matches('2.53', None)
    assert not v('2.52').matches('2.53', None)
    assert v('2.87').matches(None, '2.87')
    assert not v('2.88').matches(None, '2.87')


def test_response_headers():
    headers = dict(microversion.response_headers(
        microversion.APIVersionRequest('2.42')))
    assert headers['OpenStack-API-Version'] == 'compute 2.42'
    assert headers['X-OpenStack-Nova-API-Version'] == '2.42'
    assert 'OpenStack-API-Version' in headers['Vary']
