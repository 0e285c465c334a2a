"""The compute's late check of a hard server group policy.

The scheduler decides on what it knew when it chose; two requests racing
into the same anti-affinity group can both pick this host.  Builds of one
group on this host check in turn, each after its claim made it this
host's, and store the host before letting the next one look: the loser
sees the winner and is rescheduled.
"""

from oslo_concurrency import lockutils

from nova_clone.conf import CONF
from nova_clone import exception
from nova_clone import objects
from nova_clone.scheduler import utils as scheduler_utils


def _group_hint(request_spec, filter_properties):
    hints = (filter_properties or {}).get('scheduler_hints') or {}
    hint = hints.get('group')
    if isinstance(hint, list):
        hint = hint[0] if hint else None
    if hint:
        return hint
    group = scheduler_utils._get(request_spec, 'instance_group')
    return scheduler_utils._get(group, 'uuid') if group is not None else None


def _violation(group, instance):
    if group.policy not in ('affinity', 'anti-affinity'):
        return None
    hosts = group.get_hosts(exclude=[instance.uuid])
    if group.policy == 'anti-affinity':
        limit = (group.rules or {}).get('max_server_per_host', 1)
        if hosts.count(instance.host) >= limit:
            return 'Anti-affinity instance group policy was violated.'
    elif hosts and instance.host not in hosts:
        return 'Affinity instance group policy was violated.'
    return None


def validate(context, instance, request_spec, filter_properties):
    """Raise RescheduledException when ``instance`` (claimed here) breaks
    its group's policy; otherwise store its host for the next check."""
    if CONF.workarounds.disable_group_policy_check_upcall:
        return
    hint = _group_hint(request_spec, filter_properties)
    if not hint:
        return
    with lockutils.lock('server-group-%s' % hint):
        group = objects.InstanceGroup.get_by_hint(context, hint)
        reason = _violation(group, instance)
        if reason:
            raise exception.RescheduledException(
                instance_uuid=instance.uuid, reason=reason)
        instance.save()
