"""What a boot asked for: networks, ports, fixed IPs, or 'auto'/'none'.

``normalize`` accepts Nova's NetworkRequestList (items with network_id,
address, port_id, tag), a list of such tuples or dicts, 'auto', 'none'
or None, and
returns a ``Requests`` list the Neutron client can read the same way.
"""


class Request:
    def __init__(self, network_id=None, address=None, port_id=None,
                 tag=None):
        self.network_id = network_id
        self.address = address
        self.port_id = port_id
        self.tag = tag

    def __repr__(self):
        return '<Request net=%s ip=%s port=%s>' % (
            self.network_id, self.address, self.port_id)


class Requests:
    def __init__(self, items=()):
        self.items = list(items)

    def __iter__(self):
        return iter(self.items)

    @property
    def auto_allocate(self):
        return len(self.items) == 1 and self.items[0].network_id == 'auto'

    @property
    def no_allocate(self):
        return len(self.items) == 1 and self.items[0].network_id == 'none'

    def port_ids(self):
        return [r.port_id for r in self.items if r.port_id]


def _one(item):
    if isinstance(item, Request):
        return item
    if isinstance(item, dict):
        return Request(
            network_id=item.get('network_id') or item.get('uuid'),
            address=item.get('address') or item.get('fixed_ip'),
            port_id=item.get('port_id') or item.get('port'),
            tag=item.get('tag'))
    if isinstance(item, (tuple, list)):
        values = list(item) + [None] * 4
        # Nova's as_tuples(): (network_id, address, port_id, ...)
        return Request(network_id=values[0], address=values[1],
                       port_id=values[2])
    address = getattr(item, 'address', None)
    return Request(network_id=getattr(item, 'network_id', None),
                   address=str(address) if address else None,
                   port_id=getattr(item, 'port_id', None),
                   tag=getattr(item, 'tag', None))


def normalize(requested_networks):
    if requested_networks is None:
        return Requests()
    if isinstance(requested_networks, Requests):
        return requested_networks
    if isinstance(requested_networks, str):
        # 'auto' or 'none' as the API passes them (2.37): one request.
        return Requests([Request(network_id=requested_networks)])
    items = getattr(requested_networks, 'objects', requested_networks)
    return Requests(_one(item) for item in items)
