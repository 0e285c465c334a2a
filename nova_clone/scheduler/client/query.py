"""What the conductor uses to ask the scheduler for hosts."""

from nova_clone.scheduler import rpcapi as scheduler_rpcapi


class SchedulerQueryClient:

    def __init__(self):
        self.scheduler_rpcapi = scheduler_rpcapi.SchedulerAPI()

    def select_destinations(self, context, spec_obj, instance_uuids,
                            return_objects=False, return_alternates=False):
        return self.scheduler_rpcapi.select_destinations(
            context, spec_obj, instance_uuids, return_objects,
            return_alternates)

    def update_aggregates(self, context, aggregates):
        self.scheduler_rpcapi.update_aggregates(context, aggregates)

    def delete_aggregate(self, context, aggregate):
        self.scheduler_rpcapi.delete_aggregate(context, aggregate)
