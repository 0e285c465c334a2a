"""addFixedIp / removeFixedIp on the compute (multinic, to 2.43).

Neutron gives or takes the address on the server's port; the network
model is read back into the info cache, and updated_at moves so clients
polling the server see a change.
"""

from oslo_utils import timeutils


def add_fixed_ip(collab, context, instance, network_id):
    collab.network_api.add_fixed_ip_to_instance(context, instance,
                                                network_id)
    _touch(instance)


def remove_fixed_ip(collab, context, instance, address):
    collab.network_api.remove_fixed_ip_from_instance(context, instance,
                                                     address)
    _touch(instance)


def _touch(instance):
    instance.updated_at = timeutils.utcnow()
    instance.save()
