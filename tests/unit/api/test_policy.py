"""Default policy rules: admin, project member, reader, other projects."""

import pytest

from nova_clone import context
from nova_clone import exception
from nova_clone import policy


@pytest.fixture(autouse=True)
def fresh_policy():
    policy.reset()
    yield
    policy.reset()


def _ctx(roles, project='p1', user='u1'):
    return context.RequestContext(user_id=user, project_id=project,
                                  roles=roles)


def test_member_may_create_in_own_project():
    ctx = _ctx(['member', 'reader'])
    assert ctx.can('os_compute_api:servers:create',
                   {'project_id': 'p1', 'user_id': 'u1'})


def test_member_may_not_act_on_other_project():
    ctx = _ctx(['member', 'reader'])
    with pytest.raises(exception.PolicyNotAuthorized) as info:
        ctx.can('os_compute_api:servers:delete', {'project_id': 'p2'})
    assert info.value.code == 403
    assert 'os_compute_api:servers:delete' in info.value.format_message()


def test_reader_may_list_but_not_create():
    ctx = _ctx(['reader'])
    assert ctx.can('os_compute_api:servers:index', {'project_id': 'p1'})
    assert not ctx.can('os_compute_api:servers:create',
                       {'project_id': 'p1'}, fatal=False)


def test_admin_only_rules():
    admin = _ctx(['admin', 'member', 'reader'])
    member = _ctx(['member', 'reader'])
    for rule in ('os_compute_api:os-flavor-manage:create',
                 'os_compute_api:os-services:list',
                 'os_compute_api:os-hypervisors:list',
                 'os_compute_api:servers:index:get_all_tenants',
                 'os_compute_api:os-extended-server-attributes'):
        assert admin.can(rule, {})
        assert not member.can(rule, {}, fatal=False)


def test_external_events_allowed_to_service_role():
    service = _ctx(['service'], project='services')
    assert service.can('os_compute_api:os-server-external-events:create',
                       {})
    member = _ctx(['member'])
    assert not member.can(
        'os_compute_api:os-server-external-events:create', {}, fatal=False)


def test_keypairs_belong_to_their_user():
    ctx = _ctx(['member', 'reader'])
    assert ctx.can('os_compute_api:os-keypairs:show', {'user_id': 'u1'})
    assert not ctx.can('os_compute_api:os-keypairs:show',
                       {'user_id': 'u2'}, fatal=False)


def test_unknown_rule_is_an_error():
    from oslo_policy import policy as oslo_policy
    with pytest.raises(oslo_policy.PolicyNotRegistered):
        _ctx(['admin']).can('os_compute_api:no-such-rule', {})


def test_every_rule_has_project_scope():
    for rule in policy.list_rules():
        if hasattr(rule, 'scope_types') and rule.name.startswith(
                'os_compute_api'):
            assert rule.scope_types == ['project'], rule.name


def test_policy_sample_is_current():
    import pathlib

    from oslo_policy import generator
    sample = pathlib.Path(__file__).resolve().parents[3] / 'etc' / 'nova' / \
        'policy.yaml.sample'
    text = sample.read_text()
    for rule in policy.list_rules():
        assert generator._format_rule_default_yaml(
            rule, include_help=True) in text, rule.name
