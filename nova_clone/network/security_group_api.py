"""Security groups of servers, as Nova's API reads them from Neutron.

Module-level functions under Nova's names: the API shows each server's
groups (``get_instances_security_groups_bindings``: one ports query and
one groups query for a whole page of servers) and fills a boot request's
groups (``populate_security_groups``).
"""

from nova_clone.network import neutron

_API = None


def _api():
    global _API
    if _API is None:
        _API = neutron.API()
    return _API


def populate_security_groups(security_groups):
    """The names a boot asked for; Neutron's 'default' when none."""
    names = []
    for group in security_groups or []:
        if isinstance(group, dict):
            group = group.get('name')
        if group and group not in names:
            names.append(group)
    return names or ['default']


def get_instances_security_groups_bindings(context, servers, detailed=False):
    """{server uuid: [{'name': ...}, ...]} for a list of servers."""
    return _api().get_instances_security_groups_bindings(
        context, servers, detailed=detailed)


def get_instance_security_groups(context, instance, detailed=False):
    return _api().get_instance_security_groups(context, instance,
                                               detailed=detailed)
