"""Selection: one host chosen by the scheduler for one instance.

``select_destinations`` answers with a list (one per instance) of lists
(the chosen host first, then its alternates) of Selection objects.
"""

from oslo_serialization import jsonutils

from nova_clone.objects import base
from nova_clone.objects import fields


@base.NovaObjectRegistry.register
class Selection(base.NovaObject, base.NovaObjectDictCompat):
    VERSION = '1.1'

    fields = {
        'compute_node_uuid': fields.UUIDField(),
        'service_host': fields.StringField(),
        'nodename': fields.StringField(),
        'cell_uuid': fields.UUIDField(),
        'limits': fields.ObjectField('SchedulerLimits', nullable=True),
        # The Placement allocation request for this host, as JSON text.
        'allocation_request': fields.StringField(nullable=True),
        'allocation_request_version': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
    }

    @classmethod
    def from_host_state(cls, host_state, allocation_request=None,
                        allocation_request_version=None):
        """Build from a scheduler HostState and its Placement candidate."""
        from nova_clone.objects import request_spec
        limits = request_spec.SchedulerLimits.from_dict(
            getattr(host_state, 'limits', None) or {})
        if allocation_request is not None and not isinstance(
                allocation_request, str):
            allocation_request = jsonutils.dumps(allocation_request)
        return cls(compute_node_uuid=host_state.uuid,
                   service_host=host_state.host,
                   nodename=host_state.nodename,
                   cell_uuid=host_state.cell_uuid,
                   limits=limits,
                   allocation_request=allocation_request,
                   allocation_request_version=allocation_request_version,
                   availability_zone=getattr(host_state,
                                             'availability_zone', None))

    def to_dict(self):
        """The legacy host dict (``host``, ``nodename``, ``limits``)."""
        limits = self.limits.to_dict() if self.limits is not None else {}
        return {'host': self.service_host, 'nodename': self.nodename,
                'limits': limits}
