"""POST .../action: the body's key picks one handler among the action
families given to resource.Actions; anything else is Nova's 400."""

from oslo_serialization import jsonutils
import pytest
import webob

from nova_clone.api import resource
from nova_clone.api import router
from nova_clone.api import validation


class _Power(object):

    @resource.action('os-stop')
    @resource.response(202)
    def stop(self, req, thing_id, body):
        return None

    @resource.action('os-start')
    def start(self, req, thing_id, body):
        return {'started': thing_id}


class _Dump(object):

    @resource.action('trigger_crash_dump')
    @resource.api_version('2.17')
    @resource.response(202)
    @validation.schema({'type': 'object', 'properties': {
        'trigger_crash_dump': {'type': 'null'}},
        'required': ['trigger_crash_dump'], 'additionalProperties': False})
    def dump(self, req, thing_id, body):
        return None


def _post(body, version=None):
    table = router.Router([('/things/{thing_id}/action', {
        'POST': resource.Actions(_Power(), _Dump())})])
    headers = {'Content-Type': 'application/json'}
    if version:
        headers['OpenStack-API-Version'] = 'compute %s' % version
    req = webob.Request.blank('/v2.1/things/t1/action', method='POST',
                              headers=headers)
    req.body = jsonutils.dump_as_bytes(body)
    resp = router.dispatch(table, req)
    return resp.status_int, (jsonutils.loads(resp.body) if resp.body
                             else None)


def test_each_key_reaches_its_family_with_its_code():
    assert _post({'os-stop': None}) == (202, None)
    assert _post({'os-start': None}) == (200, {'started': 't1'})
    assert _post({'trigger_crash_dump': None}, '2.17') == (202, None)


@pytest.mark.parametrize('body,version', [
    ({'nope': None}, None),
    # Below its microversion an action does not exist.
    ({'trigger_crash_dump': None}, '2.16'),
])
def test_unknown_action_is_400(body, version):
    code, fault = _post(body, version)
    assert code == 400
    assert fault['badRequest']['message'] == \
        'There is no such action: %s' % next(iter(body))


@pytest.mark.parametrize('body', [{}, {'os-stop': None, 'os-start': None},
                                  ['os-stop']])
def test_body_with_other_than_one_key_is_400(body):
    assert _post(body)[0] == 400


def test_an_action_validates_its_body():
    code, fault = _post({'trigger_crash_dump': {'x': 1}}, '2.17')
    assert code == 400 and 'badRequest' in fault


def test_two_families_cannot_claim_one_key():
    with pytest.raises(ValueError, match='Two handlers of action'):
        resource.Actions(_Power(), _Power())
