"""addSecurityGroup and removeSecurityGroup: Neutron changes the groups
of the server's ports; the server's own list of group names (what its
views show) follows."""


def add_to_instance(compute_api, context, instance, name):
    compute_api.network_api.add_to_instance(context, instance, name)
    names = list(instance.security_groups or [])
    if name not in names:
        instance.security_groups = names + [name]
        instance.save()


def remove_from_instance(compute_api, context, instance, name):
    compute_api.network_api.remove_from_instance(context, instance, name)
    names = list(instance.security_groups or [])
    if name in names:
        names.remove(name)
        instance.security_groups = names
        instance.save()
