"""Option listing for oslo-config-generator.

See etc/nova-config-generator.conf.
"""

import collections

from nova_clone.conf import MODULES


def list_opts():
    grouped = collections.OrderedDict()
    for module in MODULES:
        for group, opts in module.list_opts().items():
            key = group if isinstance(group, str) else group.name
            grouped.setdefault(key, []).extend(opts)
    return [(group, opts) for group, opts in sorted(grouped.items())]
