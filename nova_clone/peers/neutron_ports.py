"""Ports and port bindings of the Neutron stand-in (a mixin of NeutronApp).

IPs come from the subnets' allocation pools; MACs are fa:16:3e:xx:xx:xx.
Binding a port of a server (``binding:host_id`` set, device_owner
``compute:*``) makes it ACTIVE with vif_type 'ovs' and sends Nova
network-vif-plugged; unbinding sends network-vif-unplugged, deleting
network-vif-deleted.  The multiple-bindings API (``/ports/{id}/bindings``)
keeps inactive bindings for live migration.
"""

import random

import netaddr
from oslo_log import log as logging

from nova_clone.peers import web

LOG = logging.getLogger(__name__)

ADMIN_ONLY_FIELDS = ('binding:host_id', 'binding:vif_type',
                     'binding:vif_details', 'binding:profile')
VNIC_TYPES = ('normal', 'direct', 'macvtap', 'baremetal', 'direct-physical',
              'virtio-forwarder', 'smart-nic', 'vdpa', 'remote-managed')
UPDATABLE = ('name', 'description', 'admin_state_up', 'device_id',
             'device_owner', 'binding:host_id', 'binding:profile',
             'binding:vnic_type', 'allowed_address_pairs', 'dns_name',
             'port_security_enabled', 'extra_dhcp_opts',
             'propagate_uplink_status')


def _ovs_details():
    return {'port_filter': True, 'connectivity': 'l2',
            'bridge_name': 'br-int', 'datapath_type': 'system',
            'ovs_hybrid_plug': False}


def _is_server_port(port):
    return (port.get('device_owner') or '').startswith('compute:') and \
        bool(port.get('device_id'))


class PortsMixin:

    def add_port_routes(self):
        r = self.route
        r('GET', '/v2.0/ports', self.list_ports)
        r('POST', '/v2.0/ports', self.create_port)
        r('GET', '/v2.0/ports/{port_id}', self.show_port)
        r('PUT', '/v2.0/ports/{port_id}', self.update_port)
        r('DELETE', '/v2.0/ports/{port_id}', self.delete_port)
        r('GET', '/v2.0/ports/{port_id}/bindings', self.list_bindings)
        r('POST', '/v2.0/ports/{port_id}/bindings', self.create_binding)
        r('GET', '/v2.0/ports/{port_id}/bindings/{host}', self.show_binding)
        r('PUT', '/v2.0/ports/{port_id}/bindings/{host}/activate',
          self.activate_binding)
        r('DELETE', '/v2.0/ports/{port_id}/bindings/{host}',
          self.delete_binding)

    # -- views and lookups -------------------------------------------------

    def port_view(self, req, port):
        view = dict(port)
        if not req.caller.is_admin:
            for key in ADMIN_ONLY_FIELDS:
                view.pop(key, None)
        return view

    def _port(self, req, port_id):
        port = self.store.get('neutron_ports', port_id)
        if port is None or not (req.caller.is_admin or
                                port['project_id'] == req.caller.project_id):
            from nova_clone.peers.neutron import not_found
            raise not_found('Port', port_id)
        return port

    def _err(self, status, kind, message):
        return web.PeerError(status, message, kind)

    # -- IP and MAC allocation ---------------------------------------------
    #
    # The store indexes ports by (network, IP) and (network, MAC), so a
    # check costs the same however many ports there are.  A new port gets
    # the first free address of its subnet's pools; ``_ip_hints`` keeps, per
    # subnet, the place from which that walk may start (every address
    # before it is taken), moved back whenever an address is freed.

    def _ip_taken(self, network_id, address, skip_port=None):
        return any(p['id'] != skip_port for p in self.store.lookup(
            'neutron_ports', 'ip', (network_id, address)))

    def _next_ip(self, subnet, taken, hint=False):
        """First free address of ``subnet``'s pools, in pool order.

        ``taken(address)`` is 'port' when another port holds the address,
        true when this request already handed it out.  With ``hint`` (a
        new port: none of the network's addresses is its own) the walk
        starts where the last one may, and leaves the place for the next.
        """
        gateway = subnet.get('gateway_ip')
        start = self._ip_hints.get(subnet['id']) if hint else None
        first_free = None
        for index, pool in enumerate(subnet['allocation_pools']):
            addr = netaddr.IPAddress(pool['start'])
            end = netaddr.IPAddress(pool['end'])
            if start is not None:
                if index < start[0]:
                    continue
                if index == start[0] and int(addr) < start[1]:
                    addr = netaddr.IPAddress(start[1], addr.version)
            while addr <= end:
                text = str(addr)
                if text != gateway:
                    state = taken(text)
                    if state != 'port' and first_free is None:
                        first_free = (index, int(addr))
                    if not state:
                        if hint:
                            self._remember_hint(subnet, first_free)
                        return text
                addr += 1
        if hint and first_free is not None:
            self._remember_hint(subnet, first_free)
        return None

    def _remember_hint(self, subnet, place):
        ranges = []
        for pool in subnet['allocation_pools']:
            first = netaddr.IPAddress(pool['start'])
            ranges.append((int(first), int(netaddr.IPAddress(pool['end']))))
        self._ip_hints[subnet['id']] = (place[0], place[1], first.version,
                                        ranges)

    def _ports_written(self, old, new):
        """Store watcher: a freed address moves its subnet's hint back."""
        if old is None and new is None:
            self._ip_hints.clear()
            return
        if old is None or not self._ip_hints:
            return
        kept = {ip.get('ip_address') for ip in (new or {}).get(
            'fixed_ips') or ()}
        for ip in old.get('fixed_ips') or ():
            if ip.get('ip_address') not in kept:
                self._free_ip(ip.get('ip_address'))

    def _free_ip(self, address):
        try:
            addr = netaddr.IPAddress(address)
        except (netaddr.AddrFormatError, ValueError, TypeError):
            return
        value = int(addr)
        for sub_id, (index, at, version, ranges) in list(
                self._ip_hints.items()):
            if version != addr.version:
                continue
            for pos, (first, last) in enumerate(ranges):
                if first <= value <= last:
                    if (pos, value) < (index, at):
                        self._ip_hints[sub_id] = (pos, value, version,
                                                  ranges)
                    break

    def _subnets_written(self, old, new):
        """Store watcher: a changed subnet (gateway, pools) walks afresh."""
        if old is None and new is None:
            self._ip_hints.clear()
        for doc in (old, new):
            if doc is not None:
                self._ip_hints.pop(doc['id'], None)

    def _allocate(self, network, requested, port_id=None, current=(),
                  new_port=False):
        net_id = network['id']
        subnets = self.store.all('neutron_subnets',
                                 where={'network_id': [net_id]})
        result = []
        if requested is None:
            for version in (4, 6):
                for sub in subnets:
                    if sub['ip_version'] == version:
                        requested = (requested or []) + [
                            {'subnet_id': sub['id']}]
                        break
            requested = requested or []
        if not isinstance(requested, list):
            raise self._invalid('fixed_ips must be a list')
        by_id = {s['id']: s for s in subnets}
        kept = {ip['ip_address'] for ip in current}

        def taken(address):
            # 'port': another port has it; True: this request has it.
            if self._ip_taken(net_id, address, skip_port=port_id):
                return 'port'
            return any(r['ip_address'] == address for r in result)

        for entry in requested:
            if not isinstance(entry, dict):
                raise self._invalid('Invalid data format for fixed IP')
            sub = None
            address = entry.get('ip_address')
            if entry.get('subnet_id'):
                sub = by_id.get(entry['subnet_id'])
                if sub is None:
                    raise self._invalid(
                        'Failed to create port on network %s, because '
                        'fixed_ips included invalid subnet %s'
                        % (net_id, entry['subnet_id']))
            if address:
                try:
                    ip = netaddr.IPAddress(address)
                except (netaddr.AddrFormatError, ValueError, TypeError):
                    raise self._invalid("'%s' is not a valid IP address"
                                        % address)
                matching = [s for s in subnets
                            if ip in netaddr.IPNetwork(s['cidr'])]
                if sub is None and matching:
                    sub = matching[0]
                if sub is None or ip not in netaddr.IPNetwork(sub['cidr']):
                    raise self._invalid('IP address %s is not a valid IP for'
                                        ' the specified subnet.' % address)
                if taken(str(ip)) and str(ip) not in kept:
                    raise self._err(409, 'IpAddressAlreadyAllocated',
                                    'IP address %s already allocated in '
                                    'subnet %s' % (ip, sub['id']))
                result.append({'subnet_id': sub['id'],
                               'ip_address': str(ip)})
                continue
            if sub is None:
                raise self._invalid('Invalid fixed IP %s' % (entry,))
            address = self._next_ip(sub, taken, hint=new_port)
            if address is None:
                raise self._err(409, 'IpAddressGenerationFailure',
                                'No more IP addresses available on network '
                                '%s.' % net_id)
            result.append({'subnet_id': sub['id'], 'ip_address': address})
        return result

    def _check_fixed_ip_policy(self, req, network, requested, action):
        """Neutron's <action>:fixed_ips:ip_address rule: only an admin, a
        service or the network's owner picks an address; a project using
        someone else's shared network takes what it is given."""
        if not isinstance(requested, list) or not any(
                isinstance(entry, dict) and entry.get('ip_address')
                for entry in requested):
            return
        caller = req.caller
        if (caller.is_admin or 'service' in caller.roles or
                network['project_id'] == caller.project_id):
            return
        raise self._err(403, 'HTTPForbidden',
                        '(rule:%s and rule:%s:fixed_ips:ip_address) is '
                        'disallowed by policy' % (action, action))

    def _invalid(self, message):
        return self._err(400, 'InvalidInput',
                         'Invalid input for operation: %s.' % message)

    def _mac(self, network_id, requested=None):
        def in_use(mac):
            return bool(self.store.lookup('neutron_ports', 'mac',
                                          (network_id, mac)))
        if requested:
            try:
                mac = str(netaddr.EUI(requested,
                                      dialect=netaddr.mac_unix_expanded))
            except (netaddr.AddrFormatError, ValueError, TypeError):
                raise self._invalid("'%s' is not a valid MAC address"
                                    % requested)
            if in_use(mac):
                raise self._err(409, 'MacAddressInUse',
                                'Unable to complete operation for network %s.'
                                ' The mac address %s is in use.'
                                % (network_id, mac))
            return mac
        while True:
            mac = 'fa:16:3e:%02x:%02x:%02x' % tuple(
                random.randint(0, 255) for _ in range(3))
            if not in_use(mac):
                return mac

    # -- ports -------------------------------------------------------------

    def list_ports(self, req):
        # Nova lists a server's ports by device_id on every boot and
        # delete: let the store skip the other servers' ports.
        where = {key: req.GET.getall(key) for key in ('device_id',
                                                      'network_id')
                 if key in req.GET}
        ports = self.store.all('neutron_ports', where=where)
        for spec in req.GET.getall('fixed_ips'):
            key, _sep, value = spec.partition('=')
            if key not in ('ip_address', 'subnet_id', 'ip_address_substr'):
                raise self._invalid('%s is not a valid fixed_ips filter'
                                    % spec)
            if key == 'ip_address_substr':
                ports = [p for p in ports if any(
                    value in ip['ip_address'] for ip in p['fixed_ips'])]
            else:
                ports = [p for p in ports if any(
                    ip[key] == value for ip in p['fixed_ips'])]
        return web.json_response({'ports': self.filtered(
            req, ports, self.port_view)})

    def show_port(self, req, port_id):
        return self.show_one(req, 'port',
                             self.port_view(req, self._port(req, port_id)))

    def _check_binding_fields(self, req, values):
        if any(k in values for k in ADMIN_ONLY_FIELDS) and \
                not req.caller.is_admin:
            raise self._err(403, 'HTTPForbidden',
                            '(rule:create_port:binding:host_id) is '
                            'disallowed by policy')
        vnic = values.get('binding:vnic_type')
        if vnic is not None and vnic not in VNIC_TYPES:
            raise self._invalid("'%s' is not in %s" % (vnic,
                                                       list(VNIC_TYPES)))
        profile = values.get('binding:profile')
        if profile is not None and not isinstance(profile, dict):
            raise self._invalid('binding:profile must be a dictionary')

    def _quota_check(self, project_id):
        limit = self.quota_limits(project_id)['port']
        if 0 <= limit <= self.store.count('neutron_ports', project_id):
            raise self._err(409, 'OverQuota',
                            "Quota exceeded for resources: ['port'].")

    def create_port(self, req):
        values = self.body_of(req, 'port')
        if not values.get('network_id'):
            raise self._invalid("'network_id' is required")
        self._check_binding_fields(req, values)
        with self.store.transaction():
            net = self.get_visible(req, 'neutron_networks', 'Network',
                                   values['network_id'])
            owner = self.owner_of(req, values)
            if net['project_id'] != owner and not net.get('shared') and \
                    not req.caller.is_admin:
                from nova_clone.peers.neutron import not_found
                raise not_found('Network', net['id'])
            self._quota_check(owner)
            sec_on = values.get('port_security_enabled',
                                net.get('port_security_enabled', True))
            groups = values.get('security_groups')
            if groups is None:
                default = self.ensure_default_sg(owner)
                groups = [default['id']] if sec_on and default else []
            self._check_groups(req, groups)
            port = {
                'name': values.get('name', ''),
                'network_id': net['id'],
                'admin_state_up': values.get('admin_state_up', True),
                'mac_address': self._mac(net['id'],
                                         values.get('mac_address')),
                'fixed_ips': [],
                'device_id': values.get('device_id', ''),
                'device_owner': values.get('device_owner', ''),
                'status': 'DOWN',
                'security_groups': groups,
                'allowed_address_pairs': values.get(
                    'allowed_address_pairs', []),
                'extra_dhcp_opts': values.get('extra_dhcp_opts', []),
                'port_security_enabled': sec_on,
                'binding:host_id': '',
                'binding:vif_type': 'unbound',
                'binding:vif_details': {},
                'binding:vnic_type': values.get('binding:vnic_type',
                                                'normal'),
                'binding:profile': values.get('binding:profile', {}),
                'dns_name': values.get('dns_name', ''),
                'propagate_uplink_status': False,
                'resource_request': None,
                'ip_allocation': 'immediate',
                'description': values.get('description', ''),
            }
            self.stamp(port, owner, create=True)
            self._check_fixed_ip_policy(req, net, values.get('fixed_ips'),
                                        'create_port')
            port['fixed_ips'] = self._allocate(net, values.get('fixed_ips'),
                                               port_id=port['id'],
                                               new_port=True)
            old = dict(port)
            if values.get('binding:host_id'):
                self._bind(port, values['binding:host_id'])
            self.store.add('neutron_ports', port, project_id=owner)
        self._events(old, port)
        LOG.info('Port %s created on network %s with %s', port['id'],
                 net['id'], port['fixed_ips'])
        return web.json_response({'port': self.port_view(req, port)},
                                 status=201)

    def _check_groups(self, req, groups):
        if not isinstance(groups, list):
            raise self._invalid('security_groups must be a list')
        for sg_id in groups:
            sg = self.store.get('neutron_security_groups', sg_id)
            if sg is None or not self.visible(req, sg):
                raise self._err(404, 'SecurityGroupNotFound',
                                'Security group %s does not exist' % sg_id)

    def _bind(self, port, host):
        port['binding:host_id'] = host
        if host:
            port['binding:vif_type'] = 'ovs'
            port['binding:vif_details'] = _ovs_details()
        else:
            port['binding:vif_type'] = 'unbound'
            port['binding:vif_details'] = {}
            port['status'] = 'DOWN'

    def update_port(self, req, port_id):
        values = self.body_of(req, 'port')
        self._check_binding_fields(req, values)
        for key in ('network_id', 'mac_address', 'id', 'tenant_id',
                    'project_id'):
            if key in values and not (key == 'mac_address' and
                                      req.caller.is_admin):
                raise self._invalid('Cannot update read-only attribute %s'
                                    % key)
        with self.store.transaction():
            port = self._port(req, port_id)
            if not req.caller.is_admin and \
                    port['project_id'] != req.caller.project_id:
                raise self._err(403, 'HTTPForbidden',
                                '(rule:update_port) is disallowed by policy')
            old = dict(port)
            for key in UPDATABLE:
                if key in values and key != 'binding:host_id':
                    port[key] = values[key]
            if 'security_groups' in values:
                self._check_groups(req, values['security_groups'])
                port['security_groups'] = values['security_groups']
            if 'fixed_ips' in values:
                net = self.store.get('neutron_networks', port['network_id'])
                self._check_fixed_ip_policy(req, net, values['fixed_ips'],
                                            'update_port')
                port['fixed_ips'] = self._allocate(
                    net, values['fixed_ips'], port_id=port_id,
                    current=old['fixed_ips'])
            if 'mac_address' in values:
                port['mac_address'] = self._mac(port['network_id'],
                                                values['mac_address'])
            if 'binding:host_id' in values and \
                    values['binding:host_id'] != old['binding:host_id']:
                self._bind(port, values['binding:host_id'] or '')
            self.store.put('neutron_ports', self.stamp(port))
        self._events(old, port)
        if port['fixed_ips'] != old['fixed_ips'] and _is_server_port(port):
            self.notifier.notify('network-changed', port['device_id'],
                                 port_id)
        return web.json_response({'port': self.port_view(req, port)})

    def delete_port(self, req, port_id):
        with self.store.transaction():
            port = self._port(req, port_id)
            self.store.delete('neutron_ports', port_id)
            self.release_floatingips_of(port_id)
            for binding in self.store.all('neutron_bindings',
                                          where={'port_id': [port_id]}):
                self.store.delete('neutron_bindings', binding['id'])
        if _is_server_port(port):
            self.notifier.notify('network-vif-deleted', port['device_id'],
                                 port_id)
        LOG.info('Port %s deleted', port_id)
        return web.empty_response(204)

    def _events(self, old, port):
        """Mark the port up/down and tell Nova about it."""
        host, old_host = port['binding:host_id'], old['binding:host_id']
        if host and host != old_host or (
                host and _is_server_port(port) and not _is_server_port(old)):
            if _is_server_port(port) and self.send_vif_plugged:
                # Like an agent wiring the port: it goes ACTIVE when the
                # event leaves, a moment after the binding.
                self.notifier.notify(
                    'network-vif-plugged', port['device_id'], port['id'],
                    before_send=lambda: self._mark_active(port['id'], host))
            elif _is_server_port(port):
                LOG.info('Not sending network-vif-plugged for port %s '
                         '(send_vif_plugged is off)', port['id'])
        elif old_host and not host and _is_server_port(old):
            self.notifier.notify('network-vif-unplugged', old['device_id'],
                                 port['id'])

    def _mark_active(self, port_id, host):
        with self.store.transaction():
            current = self.store.get('neutron_ports', port_id)
            if current and current['binding:host_id'] == host:
                current['status'] = 'ACTIVE'
                self.store.put('neutron_ports', current)

    # -- multiple port bindings --------------------------------------------

    def _admin_only(self, req):
        if not req.caller.is_admin:
            raise self._err(403, 'HTTPForbidden', '(rule:create_port_binding'
                            ') is disallowed by policy')

    @staticmethod
    def _active_binding(port):
        if not port['binding:host_id']:
            return None
        return {'host': port['binding:host_id'],
                'vif_type': port['binding:vif_type'],
                'vif_details': port['binding:vif_details'],
                'vnic_type': port['binding:vnic_type'],
                'profile': port['binding:profile'], 'status': 'ACTIVE'}

    def _bindings(self, port):
        out = []
        active = self._active_binding(port)
        if active:
            out.append(active)
        for binding in self.store.all('neutron_bindings',
                                      where={'port_id': [port['id']]}):
            out.append({k: v for k, v in binding.items()
                        if k not in ('id', 'port_id')})
        return out

    def _binding_not_found(self, port_id, host):
        return self._err(404, 'PortBindingNotFound',
                         'Binding for port %s for host %s could not be '
                         'found.' % (port_id, host))

    def list_bindings(self, req, port_id):
        self._admin_only(req)
        port = self._port(req, port_id)
        bindings = self._bindings(port)
        for key in ('host', 'vif_type', 'vnic_type', 'status'):
            if key in req.GET:
                bindings = [b for b in bindings if b[key] == req.GET[key]]
        return web.json_response({'bindings': bindings})

    def show_binding(self, req, port_id, host):
        self._admin_only(req)
        port = self._port(req, port_id)
        for binding in self._bindings(port):
            if binding['host'] == host:
                return web.json_response({'binding': binding})
        raise self._binding_not_found(port_id, host)

    def create_binding(self, req, port_id):
        self._admin_only(req)
        values = self.body_of(req, 'binding')
        host = values.get('host')
        if not host or not isinstance(host, str):
            raise self._invalid("'host' is required")
        vnic = values.get('vnic_type', 'normal')
        if vnic not in VNIC_TYPES:
            raise self._invalid("'%s' is not in %s" % (vnic,
                                                       list(VNIC_TYPES)))
        with self.store.transaction():
            port = self._port(req, port_id)
            if any(b['host'] == host for b in self._bindings(port)):
                raise self._err(409, 'PortBindingAlreadyExists',
                                'Binding for port %s on host %s already '
                                'exists.' % (port_id, host))
            binding = {'id': '%s:%s' % (port_id, host), 'port_id': port_id,
                       'host': host, 'vif_type': 'ovs',
                       'vif_details': _ovs_details(), 'vnic_type': vnic,
                       'profile': values.get('profile') or {},
                       'status': 'INACTIVE'}
            if not port['binding:host_id']:
                # A port with no binding gets an active one straight away.
                port['binding:vnic_type'] = vnic
                port['binding:profile'] = binding['profile']
                old = dict(port)
                self._bind(port, host)
                self.store.put('neutron_ports', self.stamp(port))
                self._events(old, port)
                binding = self._active_binding(port)
            else:
                self.store.add('neutron_bindings', binding,
                               project_id=port['project_id'])
                binding = {k: v for k, v in binding.items()
                           if k not in ('id', 'port_id')}
        return web.json_response({'binding': binding}, status=201)

    def activate_binding(self, req, port_id, host):
        self._admin_only(req)
        with self.store.transaction():
            port = self._port(req, port_id)
            if port['binding:host_id'] == host:
                raise self._err(409, 'PortBindingAlreadyActive',
                                'Binding for port %s on host %s is already '
                                'active.' % (port_id, host))
            inactive = self.store.get('neutron_bindings',
                                      '%s:%s' % (port_id, host))
            if inactive is None:
                raise self._binding_not_found(port_id, host)
            old = dict(port)
            previous = self._active_binding(port)
            self.store.delete('neutron_bindings', inactive['id'])
            if previous:
                previous.update(id='%s:%s' % (port_id, previous['host']),
                                port_id=port_id, status='INACTIVE')
                self.store.add('neutron_bindings', previous,
                               project_id=port['project_id'])
            port['binding:vnic_type'] = inactive['vnic_type']
            port['binding:profile'] = inactive['profile']
            self._bind(port, host)
            port['status'] = 'DOWN'
            self.store.put('neutron_ports', self.stamp(port))
        self._events(old, port)
        LOG.info('Port %s binding on %s activated', port_id, host)
        return web.json_response({'binding': self._active_binding(port)})

    def delete_binding(self, req, port_id, host):
        self._admin_only(req)
        with self.store.transaction():
            port = self._port(req, port_id)
            if port['binding:host_id'] == host:
                old = dict(port)
                self._bind(port, '')
                self.store.put('neutron_ports', self.stamp(port))
                self._events(old, port)
                return web.empty_response(204)
            if not self.store.delete('neutron_bindings',
                                     '%s:%s' % (port_id, host)):
                raise self._binding_not_found(port_id, host)
        return web.empty_response(204)
