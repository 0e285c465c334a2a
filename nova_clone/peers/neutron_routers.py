"""Routers and floating IPs of the Neutron stand-in (a mixin of NeutronApp).

A router's gateway and interfaces are ports it owns (device_owner
``network:router_gateway`` / ``network:router_interface``, device_id the
router), so their addresses come from the same pools as every port's.  A
floating IP holds a port on its ``router:external`` network
(``network:floatingip``); it can be bound to a port whose subnet reaches
that network through a router, as in Neutron.  Nothing is forwarded: the
stand-in keeps the bookkeeping Nova, Tempest and the CLI look at.
"""

from oslo_log import log as logging

from nova_clone.peers import web

LOG = logging.getLogger(__name__)

GATEWAY_OWNER = 'network:router_gateway'
INTERFACE_OWNER = 'network:router_interface'
FLOATING_OWNER = 'network:floatingip'


def _error(status, kind, message):
    return web.PeerError(status, message, kind)


def _bad_router(router_id, reason):
    return _error(400, 'BadRequest', 'Bad router request: %s.' % reason)


class RoutersMixin:

    def add_router_routes(self):
        r = self.route
        r('GET', '/v2.0/routers', self.list_routers)
        r('POST', '/v2.0/routers', self.create_router)
        r('GET', '/v2.0/routers/{router_id}', self.show_router)
        r('PUT', '/v2.0/routers/{router_id}', self.update_router)
        r('DELETE', '/v2.0/routers/{router_id}', self.delete_router)
        r('PUT', '/v2.0/routers/{router_id}/add_router_interface',
          self.add_router_interface)
        r('PUT', '/v2.0/routers/{router_id}/remove_router_interface',
          self.remove_router_interface)
        r('GET', '/v2.0/floatingips', self.list_floatingips)
        r('POST', '/v2.0/floatingips', self.create_floatingip)
        r('GET', '/v2.0/floatingips/{fip_id}', self.show_floatingip)
        r('PUT', '/v2.0/floatingips/{fip_id}', self.update_floatingip)
        r('DELETE', '/v2.0/floatingips/{fip_id}', self.delete_floatingip)

    # -- shared steps ------------------------------------------------------

    def _owned(self, req, table, kind, ident):
        doc = self.store.get(table, ident)
        if doc is None or not (req.caller.is_admin or
                               doc['project_id'] == req.caller.project_id):
            raise _error(404, '%sNotFound' % kind, '%s %s could not be found.'
                         % (kind, ident))
        return doc

    def _check_quota(self, project_id, resource, table):
        limit = self.quota_limits(project_id)[resource]
        if 0 <= limit <= self.store.count(table, project_id):
            raise _error(409, 'OverQuota',
                         "Quota exceeded for resources: ['%s']." % resource)

    def _external_network(self, req, network_id):
        net = self.store.get('neutron_networks', network_id or '')
        if net is None or not self.visible(req, net):
            raise _error(404, 'NetworkNotFound', 'Network %s could not be '
                         'found.' % network_id)
        if not net.get('router:external'):
            raise _error(400, 'BadRequest', 'Bad floatingip request: Network'
                         ' %s is not a valid external network.' % network_id)
        return net

    def _owned_port(self, network, owner, device_id, fixed_ips=None,
                    project_id=''):
        """A port of the router or floating IP ``device_id``."""
        port = {'name': '', 'network_id': network['id'],
                'admin_state_up': True,
                'mac_address': self._mac(network['id']),
                'device_id': device_id, 'device_owner': owner,
                'status': 'ACTIVE', 'security_groups': [],
                'allowed_address_pairs': [], 'extra_dhcp_opts': [],
                'port_security_enabled': False, 'binding:host_id': '',
                'binding:vif_type': 'unbound', 'binding:vif_details': {},
                'binding:vnic_type': 'normal', 'binding:profile': {},
                'dns_name': '', 'propagate_uplink_status': False,
                'resource_request': None, 'ip_allocation': 'immediate'}
        self.stamp(port, project_id, create=True)
        port['fixed_ips'] = self._allocate(network, fixed_ips,
                                           port_id=port['id'], new_port=True)
        self.store.add('neutron_ports', port, project_id=project_id or None)
        return port

    def _device_ports(self, device_id, owner):
        return [p for p in self.store.all('neutron_ports',
                                          where={'device_id': [device_id]})
                if p['device_owner'] == owner]

    # -- routers -----------------------------------------------------------

    def _gateway_info(self, req, info, router_id):
        """external_gateway_info as stored, with its gateway port made."""
        if not info:
            return None
        if not isinstance(info, dict) or not info.get('network_id'):
            raise _bad_router(router_id, 'network_id is required in '
                              'external_gateway_info')
        net = self._external_network(req, info['network_id'])
        port = self._owned_port(net, GATEWAY_OWNER, router_id,
                                info.get('external_fixed_ips'))
        return {'network_id': net['id'],
                'enable_snat': bool(info.get('enable_snat', True)),
                'external_fixed_ips': port['fixed_ips']}

    def _drop_gateway(self, router_id):
        for port in self._device_ports(router_id, GATEWAY_OWNER):
            self.store.delete('neutron_ports', port['id'])

    def list_routers(self, req):
        return web.json_response({'routers': self.filtered(
            req, self.store.all('neutron_routers'), lambda r, d: d)})

    def show_router(self, req, router_id):
        return self.show_one(req, 'router', self._owned(
            req, 'neutron_routers', 'Router', router_id))

    def create_router(self, req):
        values = self.body_of(req, 'router')
        owner = self.owner_of(req, values)
        with self.store.transaction():
            self._check_quota(owner, 'router', 'neutron_routers')
            router = {'name': values.get('name', ''),
                      'admin_state_up': values.get('admin_state_up', True),
                      'status': 'ACTIVE', 'routes': [],
                      'distributed': False, 'ha': False,
                      'availability_zone_hints': [],
                      'availability_zones': ['nova'], 'flavor_id': None,
                      'external_gateway_info': None}
            self.stamp(router, owner, create=True)
            router['description'] = values.get('description', '')
            router['external_gateway_info'] = self._gateway_info(
                req, values.get('external_gateway_info'), router['id'])
            self.store.add('neutron_routers', router, project_id=owner)
        LOG.info('Router %s (%s) created', router['id'], router['name'])
        return web.json_response({'router': router}, status=201)

    def update_router(self, req, router_id):
        values = self.body_of(req, 'router')
        with self.store.transaction():
            router = self._owned(req, 'neutron_routers', 'Router', router_id)
            for key in ('name', 'description', 'admin_state_up'):
                if key in values:
                    router[key] = values[key]
            if 'external_gateway_info' in values:
                if self._router_has_floating_ips(router) and \
                        not values['external_gateway_info']:
                    raise _error(409, 'RouterExternalGatewayInUseByFloatingIp',
                                 'Gateway cannot be updated for router %s, '
                                 'since a gateway to external network %s is '
                                 'required by one or more floating IPs.' % (
                                     router_id, router['external_gateway_info']
                                     ['network_id']))
                self._drop_gateway(router_id)
                router['external_gateway_info'] = self._gateway_info(
                    req, values['external_gateway_info'], router_id)
            self.store.put('neutron_routers', self.stamp(router))
        return web.json_response({'router': router})

    def _router_has_floating_ips(self, router):
        return any(f['router_id'] == router['id']
                   for f in self.store.all('neutron_floatingips'))

    def delete_router(self, req, router_id):
        with self.store.transaction():
            router = self._owned(req, 'neutron_routers', 'Router', router_id)
            if self._device_ports(router_id, INTERFACE_OWNER):
                raise _error(409, 'RouterInUse', 'Router %s still has ports.'
                             % router_id)
            if self._router_has_floating_ips(router):
                raise _error(409, 'RouterInUse', 'Router %s still has '
                             'floating IPs.' % router_id)
            self._drop_gateway(router_id)
            self.store.delete('neutron_routers', router_id)
        return web.empty_response(204)

    def _interface_info(self, router, port):
        subnets = [ip['subnet_id'] for ip in port['fixed_ips']]
        return {'id': router['id'], 'tenant_id': router['project_id'],
                'project_id': router['project_id'], 'port_id': port['id'],
                'network_id': port['network_id'],
                'subnet_id': subnets[0] if subnets else None,
                'subnet_ids': subnets}

    def _interface_body(self, req):
        body = req.json_body_or_400()
        if not isinstance(body, dict) or \
                bool(body.get('subnet_id')) == bool(body.get('port_id')):
            raise _error(400, 'BadRequest', 'Bad router request: Either '
                         'subnet_id or port_id must be specified.')
        return body

    def add_router_interface(self, req, router_id):
        body = self._interface_body(req)
        with self.store.transaction():
            router = self._owned(req, 'neutron_routers', 'Router', router_id)
            attached = {ip['subnet_id'] for p in self._device_ports(
                router_id, INTERFACE_OWNER) for ip in p['fixed_ips']}
            if body.get('port_id'):
                port = self._port(req, body['port_id'])
                if port['device_id']:
                    raise _error(409, 'PortInUse', 'Port %s is in use by '
                                 'device %s.' % (port['id'],
                                                 port['device_id']))
                if attached & {ip['subnet_id'] for ip in port['fixed_ips']}:
                    raise _bad_router(router_id, 'Router already has a port '
                                      'on subnet %s' % attached)
                port['device_id'] = router_id
                port['device_owner'] = INTERFACE_OWNER
                port['status'] = 'ACTIVE'
                self.store.put('neutron_ports', self.stamp(port))
            else:
                sub = self.store.get('neutron_subnets', body['subnet_id'])
                # A subnet is seen as its network is (shared ones too).
                net = sub and self.store.get('neutron_networks',
                                             sub['network_id'])
                if not net or not self.visible(req, net):
                    raise _error(404, 'SubnetNotFound', 'Subnet %s could not'
                                 ' be found.' % body['subnet_id'])
                if not sub.get('gateway_ip'):
                    raise _bad_router(router_id, 'Subnet for router interface'
                                      ' must have a gateway IP')
                if sub['id'] in attached:
                    raise _bad_router(router_id, 'Router already has a port '
                                      'on subnet %s' % sub['id'])
                port = self._owned_port(
                    net, INTERFACE_OWNER, router_id,
                    [{'subnet_id': sub['id'],
                      'ip_address': sub['gateway_ip']}],
                    project_id=router['project_id'])
        LOG.info('Router %s interface %s added', router_id, port['id'])
        return web.json_response(self._interface_info(router, port))

    def remove_router_interface(self, req, router_id):
        body = self._interface_body(req)
        with self.store.transaction():
            router = self._owned(req, 'neutron_routers', 'Router', router_id)
            ports = self._device_ports(router_id, INTERFACE_OWNER)
            if body.get('port_id'):
                ports = [p for p in ports if p['id'] == body['port_id']]
                if not ports:
                    raise _error(404, 'RouterInterfaceNotFound', 'Router %s '
                                 'does not have an interface with id %s'
                                 % (router_id, body['port_id']))
            else:
                ports = [p for p in ports if any(
                    ip['subnet_id'] == body['subnet_id']
                    for ip in p['fixed_ips'])]
                if not ports:
                    raise _error(404, 'RouterInterfaceNotFoundForSubnet',
                                 'Router %s has no interface on subnet %s'
                                 % (router_id, body['subnet_id']))
            port = ports[0]
            subnets = {ip['subnet_id'] for ip in port['fixed_ips']}
            for fip in self.store.all('neutron_floatingips'):
                if fip['router_id'] == router_id and \
                        self._fixed_subnet(fip) in subnets:
                    raise _error(409, 'RouterInterfaceInUseByFloatingIP',
                                 'Router interface for subnet %s on router '
                                 '%s cannot be deleted, as it is required by'
                                 ' one or more floating IPs.'
                                 % (sorted(subnets)[0], router_id))
            self.store.delete('neutron_ports', port['id'])
        return web.json_response(self._interface_info(router, port))

    # -- floating IPs ------------------------------------------------------

    def _fixed_subnet(self, fip):
        port = self.store.get('neutron_ports', fip['port_id'] or '')
        for ip in (port or {}).get('fixed_ips', ()):
            if ip['ip_address'] == fip['fixed_ip_address']:
                return ip['subnet_id']
        return None

    def _bind_floatingip(self, req, fip, port_id, fixed_address):
        """Point ``fip`` at ``port_id`` (or nowhere) through a router."""
        if not port_id:
            fip.update(port_id=None, fixed_ip_address=None, router_id=None,
                       status='DOWN', port_details=None)
            return
        port = self._port(req, port_id)
        ips = port['fixed_ips']
        if fixed_address:
            ips = [ip for ip in ips if ip['ip_address'] == fixed_address]
            if not ips:
                raise _error(400, 'BadRequest', 'Bad floatingip request: '
                             'Port %s does not have fixed ip %s.'
                             % (port_id, fixed_address))
        ips = [ip for ip in ips if ':' not in ip['ip_address']]
        if not ips:
            raise _error(400, 'BadRequest', 'Bad floatingip request: Port %s'
                         ' does not have any IPv4 address.' % port_id)
        fixed = ips[0]
        for other in self.store.all('neutron_floatingips'):
            if other['id'] != fip['id'] and other['port_id'] == port_id and \
                    other['fixed_ip_address'] == fixed['ip_address']:
                raise _error(409, 'FloatingIPPortAlreadyAssociated',
                             'Cannot associate floating IP %s (%s) with port'
                             ' %s using fixed IP %s, as that fixed IP already'
                             ' has a floating IP on external network %s.' % (
                                 fip['floating_ip_address'], fip['id'],
                                 port_id, fixed['ip_address'],
                                 other['floating_network_id']))
        router = self._router_between(fixed['subnet_id'],
                                      fip['floating_network_id'])
        if router is None:
            raise _error(404, 'ExternalGatewayForFloatingIPNotFound',
                         'External network %s is not reachable from subnet '
                         '%s.  Therefore, cannot associate Port %s with a '
                         'Floating IP.' % (fip['floating_network_id'],
                                           fixed['subnet_id'], port_id))
        fip.update(port_id=port_id, fixed_ip_address=fixed['ip_address'],
                   router_id=router['id'], status='ACTIVE',
                   port_details={'name': port['name'],
                                 'network_id': port['network_id'],
                                 'mac_address': port['mac_address'],
                                 'admin_state_up': port['admin_state_up'],
                                 'status': port['status'],
                                 'device_id': port['device_id'],
                                 'device_owner': port['device_owner']})

    def _router_between(self, subnet_id, external_network_id):
        for router in self.store.all('neutron_routers'):
            gateway = router.get('external_gateway_info') or {}
            if gateway.get('network_id') != external_network_id:
                continue
            for port in self._device_ports(router['id'], INTERFACE_OWNER):
                if any(ip['subnet_id'] == subnet_id
                       for ip in port['fixed_ips']):
                    return router
        return None

    def list_floatingips(self, req):
        return web.json_response({'floatingips': self.filtered(
            req, self.store.all('neutron_floatingips'), lambda r, d: d)})

    def show_floatingip(self, req, fip_id):
        return self.show_one(req, 'floatingip', self._owned(
            req, 'neutron_floatingips', 'FloatingIP', fip_id))

    def create_floatingip(self, req):
        values = self.body_of(req, 'floatingip')
        owner = self.owner_of(req, values)
        with self.store.transaction():
            net = self._external_network(req,
                                         values.get('floating_network_id'))
            self._check_quota(owner, 'floatingip', 'neutron_floatingips')
            fip = {'floating_network_id': net['id'], 'router_id': None,
                   'port_id': None, 'fixed_ip_address': None,
                   'status': 'DOWN', 'port_details': None,
                   'qos_policy_id': None, 'port_forwardings': [],
                   'dns_domain': '', 'dns_name': ''}
            self.stamp(fip, owner, create=True)
            fip['description'] = values.get('description', '')
            wanted = {}
            if values.get('subnet_id'):
                wanted['subnet_id'] = values['subnet_id']
            if values.get('floating_ip_address'):
                if not req.caller.is_admin:
                    raise _error(403, 'HTTPForbidden',
                                 '(rule:create_floatingip:floating_ip_'
                                 'address) is disallowed by policy')
                wanted['ip_address'] = values['floating_ip_address']
            port = self._owned_port(net, FLOATING_OWNER, fip['id'],
                                    [wanted] if wanted else None)
            v4 = [ip for ip in port['fixed_ips']
                  if ':' not in ip['ip_address']] or port['fixed_ips']
            if not v4:
                raise _error(409, 'IpAddressGenerationFailure', 'No more IP '
                             'addresses available on network %s.' % net['id'])
            fip['floating_ip_address'] = v4[0]['ip_address']
            self._bind_floatingip(req, fip, values.get('port_id'),
                                  values.get('fixed_ip_address'))
            self.store.add('neutron_floatingips', fip, project_id=owner)
        self._tell_nova(None, fip)
        LOG.info('Floating IP %s (%s) created', fip['id'],
                 fip['floating_ip_address'])
        return web.json_response({'floatingip': fip}, status=201)

    def update_floatingip(self, req, fip_id):
        values = self.body_of(req, 'floatingip')
        with self.store.transaction():
            fip = self._owned(req, 'neutron_floatingips', 'FloatingIP',
                              fip_id)
            old = dict(fip)
            if 'description' in values:
                fip['description'] = values['description']
            if 'port_id' in values:
                self._bind_floatingip(req, fip, values['port_id'],
                                      values.get('fixed_ip_address'))
            self.store.put('neutron_floatingips', self.stamp(fip))
        self._tell_nova(old, fip)
        return web.json_response({'floatingip': fip})

    def delete_floatingip(self, req, fip_id):
        with self.store.transaction():
            self._owned(req, 'neutron_floatingips', 'FloatingIP', fip_id)
            for port in self._device_ports(fip_id, FLOATING_OWNER):
                self.store.delete('neutron_ports', port['id'])
            self.store.delete('neutron_floatingips', fip_id)
        return web.empty_response(204)

    def _tell_nova(self, old, fip):
        """network-changed for the servers whose floating IPs moved."""
        for doc in (old, fip):
            details = (doc or {}).get('port_details') or {}
            if (details.get('device_owner') or '').startswith('compute:') \
                    and (old or {}).get('port_id') != fip['port_id']:
                self.notifier.notify('network-changed', details['device_id'],
                                     doc['port_id'])

    def release_floatingips_of(self, port_id):
        """A deleted port leaves its floating IPs unbound, as in Neutron."""
        for bound in self.store.all('neutron_floatingips'):
            if bound['port_id'] == port_id:
                fip = self.store.get('neutron_floatingips', bound['id'])
                fip.update(port_id=None, fixed_ip_address=None,
                           router_id=None, status='DOWN', port_details=None)
                self.store.put('neutron_floatingips', self.stamp(fip))
