"""An edited policy file applies within a second, without a restart."""

from oslo_config import cfg
from oslo_policy import policy as oslo_policy

from nova_clone import policy


def _enforcer(tmp_path, rule):
    path = tmp_path / 'policy.yaml'
    path.write_text('"demo:rule": "%s"\n' % rule)
    conf = cfg.ConfigOpts()
    conf([], project='nova-clone-test', default_config_files=[])
    enforcer = policy._Enforcer(conf, policy_file=str(path))
    enforcer.register_default(oslo_policy.RuleDefault('demo:rule', '!'))
    return enforcer, path


def _allowed(enforcer):
    return enforcer.enforce('demo:rule', {}, {'roles': ['member']})


def test_changes_apply_after_the_recheck_gap(tmp_path, monkeypatch):
    enforcer, path = _enforcer(tmp_path, 'role:member')
    assert _allowed(enforcer)
    stats = []
    real = enforcer._load_policy_file
    monkeypatch.setattr(enforcer, '_load_policy_file',
                        lambda *a, **kw: stats.append(a) or real(*a, **kw))
    path.write_text('"demo:rule": "role:admin"\n')
    # Within the gap: no look at the file for each check.
    for _ in range(20):
        assert _allowed(enforcer)
    assert stats == []
    monkeypatch.setattr(policy._Enforcer, 'RECHECK_SECONDS', 0.0)
    assert not _allowed(enforcer)
    assert stats
