"""Client side of the scheduler RPC API (topic ``scheduler``, version 4.5)."""

import oslo_messaging as messaging

from nova_clone.conf import CONF
from nova_clone import rpc

RPC_TOPIC = 'scheduler'


class SchedulerAPI:
    """select_destinations is a call; the host-info updates are fanout
    casts the scheduler may ignore."""

    VERSION = '4.5'

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version='4.0')
        self.client = rpc.get_client(target, version_cap=self.VERSION)

    def select_destinations(self, ctxt, spec_obj, instance_uuids,
                            return_objects=False, return_alternates=False):
        kwargs = {'spec_obj': spec_obj, 'instance_uuids': instance_uuids,
                  'return_objects': return_objects,
                  'return_alternates': return_alternates}
        # Scheduling a big request can take long: long_rpc_timeout.
        cctxt = self.client.prepare(version='4.5',
                                    timeout=CONF.long_rpc_timeout)
        return cctxt.call(ctxt, 'select_destinations', **kwargs)

    def update_aggregates(self, ctxt, aggregates):
        cctxt = self.client.prepare(fanout=True, version='4.1')
        cctxt.cast(ctxt, 'update_aggregates', aggregates=aggregates)

    def delete_aggregate(self, ctxt, aggregate):
        cctxt = self.client.prepare(fanout=True, version='4.1')
        cctxt.cast(ctxt, 'delete_aggregate', aggregate=aggregate)

    def update_instance_info(self, ctxt, host_name, instance_info):
        cctxt = self.client.prepare(fanout=True, version='4.2')
        cctxt.cast(ctxt, 'update_instance_info', host_name=host_name,
                   instance_info=instance_info)

    def delete_instance_info(self, ctxt, host_name, instance_uuid):
        cctxt = self.client.prepare(fanout=True, version='4.2')
        cctxt.cast(ctxt, 'delete_instance_info', host_name=host_name,
                   instance_uuid=instance_uuid)

    def sync_instance_info(self, ctxt, host_name, instance_uuids):
        cctxt = self.client.prepare(fanout=True, version='4.2')
        cctxt.cast(ctxt, 'sync_instance_info', host_name=host_name,
                   instance_uuids=instance_uuids)
