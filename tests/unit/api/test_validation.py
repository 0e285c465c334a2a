"""JSON-Schema validation messages and formats."""

import pytest

from nova_clone.api.schemas import flavors as flavor_schema
from nova_clone.api.schemas import parameter_types as pt
from nova_clone.api.schemas import servers as server_schema
from nova_clone.api import validation
from nova_clone import exception


def _error(schema, body):
    with pytest.raises(exception.ValidationError) as info:
        validation.validate_body(schema, body)
    assert info.value.code == 400
    return info.value.format_message()


def test_field_message_names_field_and_value():
    msg = _error(flavor_schema.create, {'flavor': {
        'name': 'x', 'ram': 'abc', 'vcpus': 1, 'disk': 1}})
    assert msg.startswith('Invalid input for field/attribute ram. '
                          'Value: abc.')


def test_missing_top_level_key():
    assert _error(flavor_schema.create, {}) == \
        "'flavor' is a required property"


def test_additional_properties_rejected():
    msg = _error(flavor_schema.create, {'flavor': {
        'name': 'x', 'ram': 1, 'vcpus': 1, 'disk': 1, 'bogus': 1}})
    assert 'Additional properties are not allowed' in msg


def test_name_with_leading_space_rejected():
    msg = _error({'type': 'object', 'properties': {'name': pt.name}},
                 {'name': ' lead'})
    assert "An invalid 'name' value was provided" in msg


def test_user_data_must_be_base64():
    body = {'server': {'name': 'a', 'flavorRef': '1',
                       'user_data': '@@not base64@@'}}
    msg = _error(server_schema.create, body)
    assert 'user_data' in msg


def test_networks_required_from_237():
    body = {'server': {'name': 'a', 'flavorRef': '1'}}
    validation.validate_body(server_schema.create_v232, body)
    msg = _error(server_schema.create_v237, body)
    assert "'networks' is a required property" in msg


def test_networks_auto_accepted_from_237():
    validation.validate_body(server_schema.create_v237, {
        'server': {'name': 'a', 'flavorRef': '1', 'networks': 'auto'}})


def test_uuid_format_checked():
    msg = _error(server_schema.create, {'server': {
        'name': 'a', 'flavorRef': '1', 'imageRef': 'not-a-uuid'}})
    assert 'imageRef' in msg
