"""Neutron v2.0 stand-in: discovery, networks and subnets.

Ports and port bindings live in ``neutron_ports``, security groups and
quotas in ``neutron_groups`` (mixins of the same app), events to Nova in
``neutron_events``.  A project sees its own resources plus shared and
external networks; an admin sees everything.  Errors have Neutron's body,
``{"NeutronError": {"type", "message", "detail"}}``.
"""

import uuid

import netaddr
from oslo_log import log as logging

from nova_clone.peers import neutron_events
from nova_clone.peers import neutron_groups
from nova_clone.peers import neutron_ports
from nova_clone.peers import neutron_routers
from nova_clone.peers import store as store_mod
from nova_clone.peers import web

LOG = logging.getLogger(__name__)

TABLES = ['neutron_networks', 'neutron_subnets', 'neutron_ports',
          'neutron_bindings', 'neutron_security_groups',
          'neutron_routers', 'neutron_floatingips',
          neutron_groups.QUOTA_TABLE]

EXTENSIONS = [
    ('binding', 'Port Binding', 'Expose port bindings of a virtual port to '
     'external application'),
    ('binding-extended', 'Port Bindings Extended', 'Expose port bindings of '
     'a virtual port to external application'),
    ('security-group', 'security-group', 'The security groups extension.'),
    ('quotas', 'Quota management support', 'Expose functions for quotas '
     'management per project'),
    ('quota_details', 'Quota details management support', 'Expose functions'
     ' for quotas usage statistics per project'),
    ('external-net', 'Neutron external network', 'Adds external network '
     'attribute to network resource.'),
    ('provider', 'Provider Network', 'Expose mapping of virtual networks to '
     'physical networks'),
    ('port-security', 'Port Security', 'Provides port security'),
    ('net-mtu', 'Network MTU', 'Provides MTU attribute for a network '
     'resource.'),
    ('standard-attr-description', 'standard-attr-description', 'Extension '
     'to add descriptions to standard attributes'),
    ('standard-attr-timestamp', 'Resource timestamps', 'Adds created_at and'
     ' updated_at fields to all Neutron resources that have Neutron standard'
     ' attributes.'),
    ('standard-attr-revisions', 'Resource revision numbers', 'This extension'
     ' will display the revision number of neutron resources.'),
    ('allowed-address-pairs', 'Allowed Address Pairs', 'Provides allowed '
     'address pairs'),
    ('router', 'Neutron L3 Router', 'Router abstraction for basic L3 '
     'forwarding between L2 Neutron networks and access to external '
     'networks via a NAT gateway.'),
    ('ext-gw-mode', 'Neutron L3 Configurable external gateway mode',
     'Extension of the router abstraction for specifying whether SNAT '
     'should occur on the external gateway'),
]


STR, BOOL, INT, LIST, DICT = (str,), (bool,), (int,), (list,), (dict,)
FIELDS = {
    'network': {'name': (STR, False), 'description': (STR, False),
                'admin_state_up': (BOOL, False), 'shared': (BOOL, False),
                'mtu': (INT, False), 'port_security_enabled': (BOOL, False),
                'router:external': (BOOL, False), 'is_default': (BOOL, False),
                'provider:network_type': (STR, False),
                'provider:physical_network': (STR, True),
                'provider:segmentation_id': (INT, True),
                'tenant_id': (STR, False), 'project_id': (STR, False)},
    'subnet': {'name': (STR, False), 'description': (STR, False),
               'network_id': (STR, False), 'cidr': (STR, False),
               'ip_version': (INT, False), 'gateway_ip': (STR, True),
               'allocation_pools': (LIST, False),
               'dns_nameservers': (LIST, False),
               'host_routes': (LIST, False), 'enable_dhcp': (BOOL, False),
               'ipv6_ra_mode': (STR, True), 'ipv6_address_mode': (STR, True),
               'tenant_id': (STR, False), 'project_id': (STR, False)},
    'port': {'name': (STR, False), 'description': (STR, False),
             'network_id': (STR, False), 'admin_state_up': (BOOL, False),
             'mac_address': (STR, False), 'fixed_ips': (LIST, False),
             'device_id': (STR, False), 'device_owner': (STR, False),
             'security_groups': (LIST, True),
             'allowed_address_pairs': (LIST, False),
             'extra_dhcp_opts': (LIST, False),
             'port_security_enabled': (BOOL, False),
             'binding:host_id': (STR, True), 'binding:profile': (DICT, True),
             'binding:vnic_type': (STR, False), 'dns_name': (STR, False),
             'propagate_uplink_status': (BOOL, False),
             'tenant_id': (STR, False), 'project_id': (STR, False)},
    'security_group': {'name': (STR, False), 'description': (STR, False),
                       'stateful': (BOOL, False), 'tenant_id': (STR, False),
                       'project_id': (STR, False)},
    'binding': {'host': (STR, False), 'vnic_type': (STR, False),
                'profile': (DICT, True)},
    'router': {'name': (STR, False), 'description': (STR, False),
               'admin_state_up': (BOOL, False),
               'external_gateway_info': (DICT, True),
               'tenant_id': (STR, False), 'project_id': (STR, False)},
    'floatingip': {'floating_network_id': (STR, False),
                   'port_id': (STR, True), 'fixed_ip_address': (STR, True),
                   'floating_ip_address': (STR, False),
                   'subnet_id': (STR, True), 'description': (STR, False),
                   'tenant_id': (STR, False), 'project_id': (STR, False)},
    'security_group_rule': {
        'security_group_id': (STR, False), 'direction': (STR, False),
        'ethertype': (STR, False), 'protocol': (STR + INT, True),
        'port_range_min': (INT, True), 'port_range_max': (INT, True),
        'remote_ip_prefix': (STR, True), 'remote_group_id': (STR, True),
        'description': (STR, False), 'tenant_id': (STR, False),
        'project_id': (STR, False)},
}


def _port_ips(port):
    net = port.get('network_id')
    return [(net, ip.get('ip_address')) for ip in port.get('fixed_ips') or ()
            if isinstance(ip, dict)]


def _port_mac(port):
    return ((port.get('network_id'), port.get('mac_address')),)


# What the stand-in looks documents up by, on every boot and delete.
INDEXES = {
    'neutron_ports': {'device_id': store_mod.field('device_id'),
                      'network_id': store_mod.field('network_id'),
                      'ip': _port_ips, 'mac': _port_mac},
    'neutron_subnets': {'network_id': store_mod.field('network_id')},
    'neutron_bindings': {'port_id': store_mod.field('port_id')},
}


def make_store(url, cache=True):
    """The stand-in's store; it is the only writer of its database."""
    return store_mod.Store(url, TABLES, cache=cache, indexes=INDEXES)


def _type_error(key, value):
    return web.PeerError(400, 'Invalid input for %s. Reason: %r is not a '
                         'valid value.' % (key, value), 'HTTPBadRequest')


def neutron_error(status, kind, message):
    return web.PeerError(status, message, kind)


def not_found(kind, ident):
    names = {'Network': 'Network', 'Subnet': 'Subnet', 'Port': 'Port',
             'SecurityGroup': 'Security group',
             'SecurityGroupRule': 'Security group rule'}
    return neutron_error(404, '%sNotFound' % kind, '%s %s could not be found.'
                         % (names.get(kind, kind), ident))


def invalid(message):
    return neutron_error(400, 'InvalidInput',
                         'Invalid input for operation: %s.' % message)


class NeutronApp(neutron_groups.GroupsMixin, neutron_ports.PortsMixin,
                 neutron_routers.RoutersMixin, web.PeerApp):
    name = 'neutron'

    def __init__(self, store, notifier, send_vif_plugged=True):
        super().__init__()
        self.store = store
        self.notifier = notifier
        self.send_vif_plugged = send_vif_plugged
        self._ip_hints = {}
        store.watch('neutron_ports', self._ports_written)
        store.watch('neutron_subnets', self._subnets_written)
        r = self.route
        r('GET', '/', self.versions)
        r('GET', '/v2.0', self.version)
        r('GET', '/v2.0/extensions', self.extensions)
        r('GET', '/v2.0/extensions/{alias}', self.extension)
        for kind, singular in (('networks', 'network'),
                               ('subnets', 'subnet'),
                               ('security-groups', 'security_group')):
            r('GET', '/v2.0/%s' % kind, getattr(self, 'list_' + singular))
            r('POST', '/v2.0/%s' % kind, getattr(self, 'create_' + singular))
            r('GET', '/v2.0/%s/{ident}' % kind,
              getattr(self, 'show_' + singular))
            r('PUT', '/v2.0/%s/{ident}' % kind,
              getattr(self, 'update_' + singular))
            r('DELETE', '/v2.0/%s/{ident}' % kind,
              getattr(self, 'delete_' + singular))
        r('GET', '/v2.0/security-group-rules', self.list_sg_rules)
        r('POST', '/v2.0/security-group-rules', self.create_sg_rule)
        r('GET', '/v2.0/security-group-rules/{ident}', self.show_sg_rule)
        r('DELETE', '/v2.0/security-group-rules/{ident}',
          self.delete_sg_rule)
        r('GET', '/v2.0/quotas', self.list_quotas)
        r('GET', '/v2.0/quotas/{project_id}', self.show_quota)
        r('PUT', '/v2.0/quotas/{project_id}', self.update_quota)
        r('DELETE', '/v2.0/quotas/{project_id}', self.delete_quota)
        r('GET', '/v2.0/quotas/{project_id}/default',
          self.show_default_quota)
        r('GET', '/v2.0/quotas/{project_id}/details', self.quota_details)
        r('GET', '/v2.0/quotas/{project_id}/details.json',
          self.quota_details)
        r('GET', '/v2.0/network-ip-availabilities',
          self.empty_list('network_ip_availabilities'))
        self.add_port_routes()
        self.add_router_routes()

    def format_error(self, err):
        kind = err.kind or 'HTTPError'
        if kind.startswith('HTTP') and kind != 'HTTPError':
            kind = kind
        return {'NeutronError': {'type': kind, 'message': err.message,
                                 'detail': ''}}

    # -- discovery ---------------------------------------------------------

    def versions(self, req):
        return web.json_response({'versions': [{
            'id': 'v2.0', 'status': 'CURRENT',
            'links': [{'rel': 'self',
                       'href': req.application_url + '/v2.0/'}]}]})

    def version(self, req):
        return web.json_response({'resources': [
            {'name': n, 'collection': n + 's',
             'links': [{'rel': 'self', 'href': '%s/v2.0/%ss' % (
                 req.application_url, n)}]}
            for n in ('network', 'subnet', 'port')]})

    def _extension_doc(self, ext):
        alias, name, desc = ext
        return {'alias': alias, 'name': name, 'description': desc,
                'updated': '2013-01-01T10:00:00-00:00', 'links': []}

    def extensions(self, req):
        return web.json_response({'extensions': [
            self._extension_doc(e) for e in EXTENSIONS]})

    def extension(self, req, alias):
        for ext in EXTENSIONS:
            if ext[0] == alias:
                return web.json_response(
                    {'extension': self._extension_doc(ext)})
        raise neutron_error(404, 'HTTPNotFound',
                            'Extension with alias %s does not exist' % alias)

    def empty_list(self, key):
        def handler(req):
            return web.json_response({key: []})
        return handler

    # -- helpers -----------------------------------------------------------

    def body_of(self, req, key):
        body = req.json_body_or_400()
        if not isinstance(body, dict) or not isinstance(body.get(key), dict):
            raise neutron_error(400, 'HTTPBadRequest',
                                'Resource body required')
        web.check_fields(body[key], FIELDS.get(key, {}), _type_error)
        for list_key in ('allocation_pools', 'host_routes', 'fixed_ips'):
            if any(not isinstance(item, dict)
                   for item in body[key].get(list_key) or []):
                raise _type_error(list_key, body[key][list_key])
        for list_key in ('dns_nameservers', 'security_groups'):
            if any(not isinstance(item, str)
                   for item in body[key].get(list_key) or []):
                raise _type_error(list_key, body[key][list_key])
        return body[key]

    def owner_of(self, req, values):
        owner = values.get('project_id') or values.get('tenant_id') or \
            req.caller.project_id
        if owner != req.caller.project_id and not req.caller.is_admin:
            raise neutron_error(
                403, 'HTTPForbidden',
                "(rule:create_resource) is disallowed by policy")
        return owner

    def visible(self, req, doc):
        caller = req.caller
        if caller.is_admin or doc.get('project_id') == caller.project_id:
            return True
        return bool(doc.get('shared') or doc.get('router:external'))

    def filtered(self, req, docs, view):
        """Apply Neutron's query filters and ``fields`` to ``docs``."""
        docs = [d for d in docs if self.visible(req, d)]
        skip = {'fields', 'limit', 'marker', 'sort_key', 'sort_dir',
                'page_reverse', 'fixed_ips'}
        for key in set(req.GET.keys()) - skip:
            wanted = req.GET.getall(key)
            docs = [d for d in docs if _matches(d.get(key), wanted)]
        limit = web.query_int(req, 'limit', None)
        marker = req.GET.get('marker')
        if marker:
            ids = [d['id'] for d in docs]
            docs = docs[ids.index(marker) + 1:] if marker in ids else []
        if limit:
            docs = docs[:limit]
        out = [view(req, d) for d in docs]
        fields = req.GET.getall('fields')
        if fields:
            out = [{k: v for k, v in d.items() if k in fields} for d in out]
        return out

    def get_visible(self, req, table, kind, ident):
        doc = self.store.get(table, ident)
        if doc is None or not self.visible(req, doc):
            raise not_found(kind, ident)
        return doc

    def check_owner(self, req, doc):
        if not req.caller.is_admin and \
                doc.get('project_id') != req.caller.project_id:
            raise neutron_error(
                403, 'HTTPForbidden',
                '(rule:update_resource) is disallowed by policy')

    @staticmethod
    def stamp(doc, project_id=None, create=False):
        now = web.isotime()
        if create:
            doc.setdefault('id', str(uuid.uuid4()))
            doc['created_at'] = now
            doc['revision_number'] = 0
            doc['tenant_id'] = doc['project_id'] = project_id
            doc.setdefault('description', '')
            doc.setdefault('tags', [])
        else:
            doc['revision_number'] = doc.get('revision_number', 0) + 1
        doc['updated_at'] = now
        return doc

    def show_one(self, req, key, doc):
        body = {key: doc}
        fields = req.GET.getall('fields')
        if fields:
            body = {key: {k: v for k, v in doc.items() if k in fields}}
        return web.json_response(body)

    # -- networks ----------------------------------------------------------

    def net_view(self, req, net):
        view = dict(net)
        view['subnets'] = [s['id'] for s in self.store.all(
            'neutron_subnets', where={'network_id': [net['id']]})]
        return view

    def list_network(self, req):
        self.ensure_default_sg(req.caller.project_id)
        return web.json_response({'networks': self.filtered(
            req, self.store.all('neutron_networks'), self.net_view)})

    def show_network(self, req, ident):
        return self.show_one(req, 'network', self.net_view(
            req, self.get_visible(req, 'neutron_networks', 'Network',
                                  ident)))

    def create_network(self, req):
        values = self.body_of(req, 'network')
        owner = self.owner_of(req, values)
        admin_only = ('provider:network_type', 'provider:physical_network',
                      'provider:segmentation_id', 'router:external')
        if any(k in values for k in admin_only) and not req.caller.is_admin:
            raise neutron_error(403, 'HTTPForbidden',
                                '(rule:create_network:provider:network_type)'
                                ' is disallowed by policy')
        net_type = values.get('provider:network_type', 'vxlan')
        segment = values.get('provider:segmentation_id')
        if segment is None and net_type in ('vxlan', 'geneve', 'vlan'):
            segment = 1 + self.store.count('neutron_networks')
        net = {
            'name': values.get('name', ''), 'admin_state_up':
            values.get('admin_state_up', True), 'status': 'ACTIVE',
            'shared': bool(values.get('shared', False)),
            'router:external': bool(values.get('router:external', False)),
            'mtu': values.get('mtu', 1450),
            'provider:network_type': net_type,
            'provider:physical_network':
                values.get('provider:physical_network'),
            'provider:segmentation_id': segment,
            'port_security_enabled': values.get('port_security_enabled',
                                                True),
            'availability_zone_hints': [], 'availability_zones': ['nova'],
            'ipv4_address_scope': None, 'ipv6_address_scope': None,
            'is_default': bool(values.get('is_default', False)),
            'l2_adjacency': True, 'subnets': [],
            'description': values.get('description', ''),
        }
        self.stamp(net, owner, create=True)
        self.store.add('neutron_networks', net, project_id=owner)
        self.ensure_default_sg(owner)
        LOG.info('Network %s (%s) created', net['id'], net['name'])
        return web.json_response({'network': self.net_view(req, net)},
                                 status=201)

    def update_network(self, req, ident):
        values = self.body_of(req, 'network')
        with self.store.transaction():
            net = self.get_visible(req, 'neutron_networks', 'Network', ident)
            self.check_owner(req, net)
            for key in ('name', 'description', 'admin_state_up', 'shared',
                        'mtu', 'port_security_enabled', 'router:external'):
                if key in values:
                    net[key] = values[key]
            self.store.put('neutron_networks', self.stamp(net))
        return web.json_response({'network': self.net_view(req, net)})

    def delete_network(self, req, ident):
        with self.store.transaction():
            net = self.get_visible(req, 'neutron_networks', 'Network', ident)
            self.check_owner(req, net)
            ports = [p for p in self.store.all('neutron_ports',
                                               where={'network_id': [ident]})
                     if not p['device_owner'].startswith('network:')]
            if ports:
                raise neutron_error(
                    409, 'NetworkInUse',
                    'Unable to complete operation on network %s. There are '
                    'one or more ports still in use on the network.' % ident)
            for sub in self.store.all('neutron_subnets',
                                      where={'network_id': [ident]}):
                self.store.delete('neutron_subnets', sub['id'])
            self.store.delete('neutron_networks', ident)
        return web.empty_response(204)

    # -- subnets -----------------------------------------------------------

    def list_subnet(self, req):
        return web.json_response({'subnets': self.filtered(
            req, self._subnets_with_net(), lambda r, s: s)})

    def _subnets_with_net(self):
        nets = {n['id']: n for n in self.store.all('neutron_networks')}
        out = []
        for sub in self.store.all('neutron_subnets'):
            net = nets.get(sub['network_id'], {})
            # Subnets of a shared network are visible like the network.
            sub = dict(sub, shared=net.get('shared', False))
            out.append(sub)
        return out

    def _strip(self, sub):
        sub = dict(sub)
        sub.pop('shared', None)
        return sub

    def show_subnet(self, req, ident):
        for sub in self._subnets_with_net():
            if sub['id'] == ident and self.visible(req, sub):
                return self.show_one(req, 'subnet', self._strip(sub))
        raise not_found('Subnet', ident)

    def create_subnet(self, req):
        values = self.body_of(req, 'subnet')
        net_id = values.get('network_id')
        if not net_id:
            raise invalid("'network_id' is required")
        with self.store.transaction():
            net = self.get_visible(req, 'neutron_networks', 'Network',
                                   net_id)
            owner = self.owner_of(req, values)
            if owner != net['project_id'] and not req.caller.is_admin:
                raise neutron_error(403, 'HTTPForbidden',
                                    '(rule:create_subnet) is disallowed by '
                                    'policy')
            sub = self._build_subnet(values, net)
            self.stamp(sub, owner, create=True)
            self.store.add('neutron_subnets', sub, project_id=owner)
        LOG.info('Subnet %s %s created on network %s', sub['id'],
                 sub['cidr'], net_id)
        return web.json_response({'subnet': sub}, status=201)

    def _build_subnet(self, values, net):
        version = values.get('ip_version', 4)
        if version not in (4, 6, '4', '6'):
            raise invalid("%s is not a valid IP version" % version)
        version = int(version)
        try:
            cidr = netaddr.IPNetwork(values.get('cidr') or '')
        except (netaddr.AddrFormatError, ValueError, TypeError):
            raise invalid("'%s' is not a valid IP subnet"
                          % values.get('cidr'))
        if cidr.version != version:
            raise invalid('Cidr %s does not match IP version %s'
                          % (cidr, version))
        if cidr.size < 4:
            raise invalid('Invalid CIDR %s: too small' % cidr)
        for other in self.store.all('neutron_subnets',
                                    where={'network_id': [net['id']]}):
            if netaddr.IPNetwork(other['cidr']) in cidr or \
                    cidr in netaddr.IPNetwork(other['cidr']):
                raise neutron_error(
                    400, 'BadRequest', 'Invalid input for operation: '
                    'Requested subnet with cidr: %s for network: %s overlaps'
                    ' with another subnet.' % (cidr, net['id']))
        gateway = values.get('gateway_ip', str(cidr.network + 1))
        if gateway is not None:
            try:
                if netaddr.IPAddress(gateway) not in cidr:
                    raise invalid('Gateway is not valid on subnet')
            except (netaddr.AddrFormatError, ValueError):
                raise invalid("'%s' is not a valid IP address" % gateway)
        pools = values.get('allocation_pools')
        if pools:
            for pool in pools:
                try:
                    start = netaddr.IPAddress(pool['start'])
                    end = netaddr.IPAddress(pool['end'])
                except (KeyError, TypeError, netaddr.AddrFormatError):
                    raise invalid('Invalid allocation pool %s' % (pool,))
                if start not in cidr or end not in cidr or start > end:
                    raise neutron_error(
                        400, 'InvalidAllocationPool',
                        'The allocation pool %s-%s spans beyond the subnet '
                        'cidr %s.' % (pool['start'], pool['end'], cidr))
        else:
            last = cidr.broadcast - 1 if version == 4 else cidr.last
            first = cidr.network + 1
            pools = []
            if gateway and netaddr.IPAddress(gateway) == first:
                first = first + 1
            if gateway and first < netaddr.IPAddress(gateway) <= last:
                gw = netaddr.IPAddress(gateway)
                pools.append({'start': str(first), 'end': str(gw - 1)})
                first = gw + 1
            pools.append({'start': str(first), 'end': str(last)})
        return {
            'name': values.get('name', ''), 'network_id': net['id'],
            'ip_version': version, 'cidr': str(cidr),
            'gateway_ip': gateway, 'allocation_pools': pools,
            'enable_dhcp': bool(values.get('enable_dhcp', True)),
            'dns_nameservers': list(values.get('dns_nameservers', [])),
            'host_routes': list(values.get('host_routes', [])),
            'ipv6_ra_mode': values.get('ipv6_ra_mode'),
            'ipv6_address_mode': values.get('ipv6_address_mode'),
            'subnetpool_id': None, 'segment_id': None, 'service_types': [],
            'description': values.get('description', ''),
        }

    def update_subnet(self, req, ident):
        values = self.body_of(req, 'subnet')
        with self.store.transaction():
            sub = self.store.get('neutron_subnets', ident)
            if sub is None or not self.visible(req, sub):
                raise not_found('Subnet', ident)
            self.check_owner(req, sub)
            for key in ('name', 'description', 'enable_dhcp',
                        'dns_nameservers', 'host_routes', 'gateway_ip'):
                if key in values:
                    sub[key] = values[key]
            self.store.put('neutron_subnets', self.stamp(sub))
        return web.json_response({'subnet': sub})

    def delete_subnet(self, req, ident):
        with self.store.transaction():
            sub = self.store.get('neutron_subnets', ident)
            if sub is None or not self.visible(req, sub):
                raise not_found('Subnet', ident)
            self.check_owner(req, sub)
            for port in self.store.all('neutron_ports'):
                if any(ip['subnet_id'] == ident for ip in port['fixed_ips']):
                    raise neutron_error(
                        409, 'SubnetInUse',
                        'Unable to complete operation on subnet %s: One or '
                        'more ports have an IP allocation from this subnet.'
                        % ident)
            self.store.delete('neutron_subnets', ident)
        return web.empty_response(204)

def _matches(value, wanted):
    if isinstance(value, bool):
        return str(value).lower() in [w.lower() for w in wanted]
    if isinstance(value, list):
        return any(w in [str(v) for v in value] for w in wanted)
    if value is None:
        return '' in wanted or 'None' in wanted
    return str(value) in wanted


def make_app(conf, store=None, notifier=None):
    """The Neutron stand-in behind auth_token and request_id."""
    if store is None:
        store = make_store(conf.peers.connection)
        store.create_all()
    if notifier is None:
        notifier = neutron_events.NovaNotifier(conf)
    app = NeutronApp(store, notifier,
                     send_vif_plugged=conf.peers.send_vif_plugged)
    return web.wrap(app, conf, public_paths=('',))
