"""SameHostFilter and DifferentHostFilter: the ``same_host`` and
``different_host`` scheduler hints name servers; the request goes to a
host holding one of them, or to one holding none of them.

The hinted servers' hosts are read from their cells once per request.
"""

from nova_clone import context as nova_context
from nova_clone import objects
from nova_clone.scheduler import filters
from nova_clone.scheduler import utils


def _hinted_uuids(spec_obj, hint):
    value = (utils._get(spec_obj, 'scheduler_hints') or {}).get(hint)
    if not value:
        return []
    return [value] if isinstance(value, str) else list(value)


def hosts_of(uuids):
    """The hosts the servers ``uuids`` are on (servers not found: none)."""
    ctxt = nova_context.get_admin_context()
    by_cell = {}
    for mapping in objects.InstanceMappingList.get_by_instance_uuids(
            ctxt, uuids):
        if mapping.cell_mapping is not None:
            by_cell.setdefault(mapping.cell_mapping.uuid, (
                mapping.cell_mapping, []))[1].append(mapping.instance_uuid)
    hosts = set()
    for cell, cell_uuids in by_cell.values():
        with nova_context.target_cell(ctxt, cell) as cctxt:
            hosts.update(inst.host for inst in objects.InstanceList
                         .get_by_uuids(cctxt, cell_uuids) if inst.host)
    return hosts


class _HintedHostsFilter(filters.BaseHostFilter):
    hint = None
    want_overlap = None
    # A rebuild stays on its host whatever the hints said at boot.
    run_on_rebuild = False

    def filter_all(self, host_states, spec_obj):
        uuids = _hinted_uuids(spec_obj, self.hint)
        if not uuids:
            yield from host_states
            return
        hosts = hosts_of(uuids)
        for host_state in host_states:
            if (host_state.host in hosts) == self.want_overlap:
                yield host_state

    def host_passes(self, host_state, spec_obj):
        return any(True for _ in self.filter_all([host_state], spec_obj))


class SameHostFilter(_HintedHostsFilter):
    hint = 'same_host'
    want_overlap = True


class DifferentHostFilter(_HintedHostsFilter):
    hint = 'different_host'
    want_overlap = False
