"""Nova's client of the network service (Neutron v2.0).

``API`` validates the networks a boot asks for, creates or claims the
server's ports and binds them to its host, builds the network model
(``nova_clone.network.model.NetworkInfo``) that the info cache keeps,
releases ports on delete, and drives the multiple-bindings API during
live migration.  User calls carry the user's token; binding fields and
the network model use the ``[neutron]`` service user, as Nova does.
"""

import time

from oslo_log import log as logging

from nova_clone import exception
from nova_clone.network import model
from nova_clone.network import requests as net_requests
from nova_clone import client_auth

LOG = logging.getLogger(__name__)

GROUP = 'neutron'
BINDING_HOST = 'binding:host_id'
BINDING_PROFILE = 'binding:profile'
QUOTA_DETAILS = 'quota_details'
# Seconds the list of Neutron's extensions is trusted before re-reading.
EXTENSIONS_TTL = 600


def _neutron_error(resp):
    try:
        err = resp.json().get('NeutronError') or {}
    except (ValueError, AttributeError):
        err = {}
    if not isinstance(err, dict):
        err = {'message': str(err)}
    return err.get('type') or '', err.get('message') or \
        client_auth.error_message(resp)


class NeutronCall:
    """One adapter (user or admin) with Neutron's error handling."""

    def __init__(self, context, admin=False):
        try:
            self.adapter = client_auth.get_adapter(GROUP, context,
                                                   admin=admin)
        except exception.NovaException as exc:
            raise exception.NetworkServiceUnavailable(reason=str(exc))

    def __call__(self, method, url, expected=(200, 201, 204), **kwargs):
        try:
            resp = client_auth.request(self.adapter, method, url, **kwargs)
        except exception.NovaException as exc:
            raise exception.NetworkServiceUnavailable(reason=str(exc))
        if resp.status_code in expected:
            return resp.json() if resp.content else None
        kind, message = _neutron_error(resp)
        raise NeutronClientError(resp.status_code, kind, message)


class NeutronClientError(Exception):
    def __init__(self, status, kind, message):
        super().__init__('%s %s: %s' % (status, kind, message))
        self.status, self.kind, self.message = status, kind, message


class API:
    """What Nova asks of Neutron."""

    def __init__(self):
        # (when read, aliases) of Neutron's extensions; see _extensions.
        self._ext_cache = None

    # -- small reads -------------------------------------------------------

    def _client(self, context, admin=False):
        return NeutronCall(context, admin=admin)

    def list_ports(self, context, **search_opts):
        return self._client(context)('GET', '/v2.0/ports',
                                     params=search_opts)

    def show_port(self, context, port_id):
        try:
            return self._client(context)('GET', '/v2.0/ports/%s' % port_id)
        except NeutronClientError as exc:
            if exc.status == 404:
                raise exception.PortNotFound(port_id=port_id)
            raise exception.NetworkServiceUnavailable(reason=str(exc))

    def get(self, context, network_uuid):
        try:
            return self._client(context)(
                'GET', '/v2.0/networks/%s' % network_uuid)['network']
        except NeutronClientError as exc:
            if exc.status == 404:
                raise exception.NetworkNotFound(network_id=network_uuid)
            raise exception.NetworkServiceUnavailable(reason=str(exc))

    def _extensions(self, client):
        """Aliases of Neutron's extensions, re-read every few minutes.

        Every boot asks whether ``quota_details`` is there; Neutron's
        extensions change only when it is upgraded.
        """
        now = time.monotonic()
        cached = self._ext_cache
        if cached is not None and now - cached[0] < EXTENSIONS_TTL:
            return cached[1]
        aliases = frozenset(e['alias'] for e in
                            client('GET', '/v2.0/extensions')['extensions'])
        self._ext_cache = (now, aliases)
        return aliases

    def has_port_binding_extension(self, context=None, client=None):
        client = client or self._client(context, admin=True)
        return 'binding-extended' in self._extensions(client)

    supports_port_binding_extension = has_port_binding_extension

    def _available_networks(self, context, project_id, net_ids=None):
        client = self._client(context)
        if net_ids:
            nets = client('GET', '/v2.0/networks',
                          params={'id': list(net_ids)})['networks']
            found = {n['id'] for n in nets}
            for net_id in net_ids:
                if net_id not in found:
                    raise exception.NetworkNotFound(network_id=net_id)
            return nets
        own = client('GET', '/v2.0/networks',
                     params={'tenant_id': project_id,
                             'shared': 'False'})['networks']
        shared = client('GET', '/v2.0/networks',
                        params={'shared': 'True'})['networks']
        # External networks are not for servers unless asked for by id.
        return [n for n in own + shared if not n.get('router:external')]

    # -- validation at the API ----------------------------------------------

    def validate_networks(self, context, requested_networks, num_instances):
        """Check the request; returns how many servers the ports allow."""
        reqs = net_requests.normalize(requested_networks)
        if reqs.no_allocate:
            return num_instances
        client = self._client(context)
        ports_needed_per_instance = 0
        net_ids = []
        for req in reqs:
            if req.port_id:
                port = self.show_port(context, req.port_id)['port']
                if port.get('device_id'):
                    raise exception.PortInUse(port_id=req.port_id)
                if not port.get('fixed_ips'):
                    raise exception.PortRequiresFixedIP(port_id=req.port_id)
                req.network_id = port['network_id']
                continue
            ports_needed_per_instance += 1
            if req.network_id:
                net_ids.append(req.network_id)
                if req.address:
                    self._check_fixed_ip_free(client, req)
        if not reqs.items or reqs.auto_allocate:
            nets = self._available_networks(context, context.project_id)
            if len(nets) > 1:
                raise exception.NetworkAmbiguous()
            ports_needed_per_instance = 1 if nets else 0
            if not nets and reqs.auto_allocate:
                raise exception.UnableToAutoAllocateNetwork(
                    project_id=context.project_id)
        elif net_ids:
            nets = self._available_networks(context, context.project_id,
                                            net_ids)
            for net in nets:
                if not net.get('subnets'):
                    raise exception.NetworkRequiresSubnet(
                        network_uuid=net['id'])
                if net.get('router:external') and not net.get('shared') \
                        and not context.is_admin:
                    raise exception.ExternalNetworkAttachForbidden(
                        network_uuid=net['id'])
        if ports_needed_per_instance == 0:
            return num_instances
        return self._max_by_quota(context, client, num_instances,
                                  ports_needed_per_instance)

    def _check_fixed_ip_free(self, client, req):
        ports = client('GET', '/v2.0/ports', params={
            'network_id': req.network_id,
            'fixed_ips': 'ip_address=%s' % req.address})['ports']
        if ports:
            raise exception.FixedIpAlreadyInUse(
                address=req.address, instance_uuid=ports[0].get('device_id'))

    def _port_quota(self, context, client):
        """(limit, in use) of the project's ports; limit -1 is unlimited.

        With ``quota_details`` Neutron counts for us in one call; without
        it we list the project's ports, which grows with the project.
        """
        project = context.project_id
        try:
            details = QUOTA_DETAILS in self._extensions(client)
        except NeutronClientError:
            details = False
        if details:
            port = client('GET', '/v2.0/quotas/%s/details' % project)[
                'quota'].get('port') or {}
            return (port.get('limit', -1),
                    port.get('used', 0) + port.get('reserved', 0))
        limit = client('GET', '/v2.0/quotas/%s' % project)['quota'].get(
            'port', -1)
        if limit == -1:
            return limit, 0
        return limit, len(client('GET', '/v2.0/ports', params={
            'tenant_id': project, 'fields': 'id'})['ports'])

    def _max_by_quota(self, context, client, num_instances, per_instance):
        try:
            limit, used = self._port_quota(context, client)
        except NeutronClientError:
            return num_instances
        if limit == -1:
            return num_instances
        free = limit - used
        if free >= num_instances * per_instance:
            return num_instances
        fits = free // per_instance
        if fits <= 0:
            raise exception.PortLimitExceeded()
        return min(num_instances, fits)

    # -- allocation at the compute ------------------------------------------

    def _security_group_ids(self, context, client, project_id, names):
        names = [n for n in (names or []) if n]
        if not names:
            return None
        groups = client('GET', '/v2.0/security-groups', params={
            'tenant_id': project_id})['security_groups']
        ids = []
        for name in names:
            if isinstance(name, dict):
                name = name.get('name')
            name = getattr(name, 'name', name)
            match = [g['id'] for g in groups
                     if g['name'] == name or g['id'] == name]
            if not match:
                raise exception.SecurityGroupNotFound(security_group_id=name)
            if len(match) > 1:
                raise exception.NetworkAmbiguous(
                    'Multiple security groups named %s; use an id.' % name)
            ids.append(match[0])
        return ids

    def validate_security_groups(self, context, names):
        """Raise SecurityGroupNotFound for a requested group the project
        cannot use ('default' always exists: Neutron makes it)."""
        wanted = [n for n in names or () if n and n != 'default']
        if wanted:
            self._security_group_ids(context, self._client(context),
                                     context.project_id, wanted)

    def _port_fields(self, instance, bind_host_id):
        zone = getattr(instance, 'availability_zone', None) or 'nova'
        fields = {'device_id': instance.uuid,
                  'device_owner': 'compute:%s' % zone}
        if bind_host_id:
            fields[BINDING_HOST] = bind_host_id
        return fields

    def _networks_to_use(self, context, instance, reqs):
        if reqs.items and not reqs.auto_allocate:
            return reqs.items
        nets = self._available_networks(context, instance.project_id)
        if not nets:
            if reqs.auto_allocate:
                raise exception.UnableToAutoAllocateNetwork(
                    project_id=instance.project_id)
            return []
        if len(nets) > 1:
            raise exception.NetworkAmbiguous()
        return [net_requests.Request(network_id=nets[0]['id'])]

    def allocate_for_instance(self, context, instance, requested_networks,
                              security_groups=None, bind_host_id=None,
                              resource_provider_mapping=None,
                              network_arqs=None, save_cache=True, **kwargs):
        """Create or claim the server's ports, bind them, return the model.

        The model also goes into the instance's info cache; with
        ``save_cache=False`` the caller's next instance.save() stores it.
        """
        reqs = net_requests.normalize(requested_networks)
        if reqs.no_allocate:
            return model.NetworkInfo()
        user = self._client(context)
        admin = self._client(context, admin=True)
        items = self._networks_to_use(context, instance, reqs)
        sg_ids = None
        if any(not r.port_id for r in items):
            sg_ids = self._security_group_ids(context, user,
                                              instance.project_id,
                                              security_groups)
        created, claimed, preserve = [], [], set()
        bound = []  # the ports as Neutron answered the binding
        try:
            for req in items:
                if req.port_id:
                    port = self.show_port(context, req.port_id)['port']
                    if port.get('device_id') and \
                            port['device_id'] != instance.uuid:
                        raise exception.PortInUse(port_id=req.port_id)
                    claimed.append(req.port_id)
                    preserve.add(req.port_id)
                    port_id = req.port_id
                else:
                    port_id = self._create_port(user, instance, req,
                                                sg_ids)
                    created.append(port_id)
                bound.append(self._update_port(
                    admin, port_id, self._port_fields(instance, bind_host_id)))
        except Exception:
            with _logged('rolling back ports of %s' % instance.uuid):
                for port_id in created:
                    self._delete_port(admin, port_id)
                for port_id in claimed:
                    self._unbind_port(admin, port_id)
            raise
        LOG.info('Ports %s of instance %s bound to %s', created + claimed,
                 instance.uuid, bind_host_id)
        order = claimed + created
        # A new server's ports are exactly the ones just bound: their
        # binding answers spare listing them again.
        ports = bound if not _cached_info(instance) else None
        return self._build_network_info(context, instance, preserve=preserve,
                                        order=order, save=save_cache,
                                        ports=ports)

    def _create_port(self, client, instance, req, sg_ids):
        body = {'network_id': req.network_id,
                'tenant_id': instance.project_id,
                'admin_state_up': True}
        if req.address:
            body['fixed_ips'] = [{'ip_address': str(req.address)}]
        if sg_ids is not None:
            body['security_groups'] = sg_ids
        try:
            port = client('POST', '/v2.0/ports', json={'port': body})
        except NeutronClientError as exc:
            raise self._port_create_error(exc, req, instance)
        return port['port']['id']

    @staticmethod
    def _port_create_error(exc, req, instance):
        if exc.kind == 'IpAddressAlreadyAllocated' or \
                exc.kind == 'IpAddressInUse':
            return exception.FixedIpAlreadyInUse(
                address=req.address, instance_uuid=instance.uuid)
        if exc.kind == 'IpAddressGenerationFailure':
            return exception.NoMoreFixedIps(net=req.network_id)
        if exc.kind == 'OverQuota':
            return exception.PortLimitExceeded()
        if exc.status == 404 and exc.kind == 'NetworkNotFound':
            return exception.NetworkNotFound(network_id=req.network_id)
        if exc.status == 404:
            return exception.SecurityGroupNotFound(
                security_group_id=exc.message)
        if exc.status == 400:
            return exception.InvalidInput(reason=exc.message)
        return exception.NetworkServiceUnavailable(reason=str(exc))

    def _update_port(self, client, port_id, fields):
        try:
            return client('PUT', '/v2.0/ports/%s' % port_id,
                          json={'port': fields})['port']
        except NeutronClientError as exc:
            if exc.status == 404:
                raise exception.PortNotFound(port_id=port_id)
            raise exception.PortUpdateFailed(port_id=port_id,
                                             reason=exc.message)

    def _unbind_port(self, client, port_id, detach=True):
        """Take the port off its host; ``detach`` also gives it up (it
        stays the server's otherwise, as for a shelve offload)."""
        fields = {BINDING_HOST: None, BINDING_PROFILE: {}}
        if detach:
            fields.update(device_id='', device_owner='')
        try:
            client('PUT', '/v2.0/ports/%s' % port_id,
                   json={'port': fields})
        except NeutronClientError as exc:
            if exc.status != 404:
                LOG.error('Unable to unbind port %s: %s', port_id, exc)

    def _delete_port(self, client, port_id):
        try:
            client('DELETE', '/v2.0/ports/%s' % port_id)
        except NeutronClientError as exc:
            if exc.status != 404:
                raise exception.NetworkServiceUnavailable(reason=str(exc))

    def deallocate_for_instance(self, context, instance, save_cache=True,
                                **kwargs):
        """Delete the ports Nova made; give back the ones the user gave.

        The info cache is emptied; with ``save_cache=False`` the caller's
        next instance.save() stores it.
        """
        admin = self._client(context, admin=True)
        ports = admin('GET', '/v2.0/ports',
                      params={'device_id': instance.uuid})['ports']
        keep = set(net_requests.normalize(
            kwargs.get('requested_networks')).port_ids())
        for vif in _cached_info(instance):
            if vif.get('preserve_on_delete'):
                keep.add(vif['id'])
        for port in ports:
            if port['id'] in keep:
                self._unbind_port(admin, port['id'])
            else:
                self._delete_port(admin, port['id'])
        LOG.info('Released ports of instance %s (kept %s)', instance.uuid,
                 sorted(keep & {p['id'] for p in ports}))
        _save_cache(instance, model.NetworkInfo(), save=save_cache)

    def deallocate_port_for_instance(self, context, instance, port_id):
        """Give back one port of the server (an interface detach): unbind
        a port the user gave, delete one Nova made.  Returns the network
        model without it (the info cache is saved)."""
        admin = self._client(context, admin=True)
        cached = {vif['id']: vif for vif in _cached_info(instance)}
        if (cached.get(port_id) or {}).get('preserve_on_delete'):
            self._unbind_port(admin, port_id)
        else:
            self._delete_port(admin, port_id)
        LOG.info('Released port %s of instance %s', port_id, instance.uuid)
        return self._build_network_info(context, instance)

    # -- the network model --------------------------------------------------

    def add_fixed_ip_to_instance(self, context, instance, network_id):
        """One more address from ``network_id`` on the server's port there
        (multinic); the refreshed network model."""
        admin = self._client(context, admin=True)
        subnets = admin('GET', '/v2.0/subnets',
                        params={'network_id': network_id})['subnets']
        ports = admin('GET', '/v2.0/ports', params={
            'device_id': instance.uuid, 'network_id': network_id})['ports']
        for port in ports:
            for subnet in subnets:
                wanted = port['fixed_ips'] + [{'subnet_id': subnet['id']}]
                try:
                    admin('PUT', '/v2.0/ports/%s' % port['id'],
                          json={'port': {'fixed_ips': wanted}})
                except NeutronClientError as exc:
                    LOG.debug('No address from subnet %s on port %s: %s',
                              subnet['id'], port['id'], exc)
                    continue
                return self._build_network_info(context, instance)
        raise exception.NetworkNotFoundForInstance(instance_id=instance.uuid)

    def remove_fixed_ip_from_instance(self, context, instance, address):
        admin = self._client(context, admin=True)
        ports = admin('GET', '/v2.0/ports',
                      params={'device_id': instance.uuid})['ports']
        for port in ports:
            kept = [ip for ip in port['fixed_ips']
                    if ip['ip_address'] != address]
            if len(kept) != len(port['fixed_ips']):
                admin('PUT', '/v2.0/ports/%s' % port['id'],
                      json={'port': {'fixed_ips': kept}})
                return self._build_network_info(context, instance)
        raise exception.FixedIpNotFoundForSpecificInstance(
            instance_uuid=instance.uuid, ip=address)

    def get_instance_nw_info(self, context, instance, **kwargs):
        """The server's network model, fresh from Neutron (cache refreshed)."""
        return self._build_network_info(context, instance)

    def _build_network_info(self, context, instance, preserve=(),
                            order=(), save=True, ports=None):
        admin = self._client(context, admin=True)
        if ports is None:
            ports = admin('GET', '/v2.0/ports',
                          params={'device_id': instance.uuid})['ports']
        cached = {vif['id']: vif for vif in _cached_info(instance)}
        preserve = set(preserve) | {i for i, v in cached.items()
                                    if v.get('preserve_on_delete')}
        rank = {pid: n for n, pid in enumerate(list(cached) + list(order))}
        ports.sort(key=lambda p: rank.get(p['id'], len(rank)))
        net_ids = sorted({p['network_id'] for p in ports})
        nets, subnets, floating = {}, {}, {}
        if ports:
            for fip in admin('GET', '/v2.0/floatingips', params={
                    'port_id': [p['id'] for p in ports]})['floatingips']:
                floating.setdefault(
                    (fip['port_id'], fip['fixed_ip_address']), []).append(
                        fip['floating_ip_address'])
        if net_ids:
            nets = {n['id']: n for n in admin('GET', '/v2.0/networks', params={
                'id': net_ids})['networks']}
            subnets = {s['id']: s for s in admin(
                'GET', '/v2.0/subnets',
                params={'network_id': net_ids})['subnets']}
        info = model.NetworkInfo(
            _vif(port, nets.get(port['network_id'], {}), subnets,
                 port['id'] in preserve, floating) for port in ports)
        _save_cache(instance, info, save=save)
        return info

    # -- moving servers -----------------------------------------------------

    def _instance_port_ids(self, context, instance):
        cached = [vif['id'] for vif in _cached_info(instance)]
        if cached:
            return cached
        ports = self._client(context, admin=True)(
            'GET', '/v2.0/ports', params={'device_id': instance.uuid})
        return [p['id'] for p in ports['ports']]

    def bind_ports_to_host(self, context, instance, host, vnic_types=None,
                           port_profiles=None):
        """Inactive bindings on ``host`` for every port (live migration)."""
        admin = self._client(context, admin=True)
        bindings = {}
        for port_id in self._instance_port_ids(context, instance):
            body = {'host': host}
            if vnic_types and port_id in vnic_types:
                body['vnic_type'] = vnic_types[port_id]
            if port_profiles and port_id in port_profiles:
                body['profile'] = port_profiles[port_id]
            try:
                resp = admin('POST', '/v2.0/ports/%s/bindings' % port_id,
                             json={'binding': body})
            except NeutronClientError as exc:
                LOG.error('Binding port %s to %s failed: %s', port_id, host,
                          exc)
                for done in bindings:
                    with _logged('removing binding of %s' % done):
                        self.delete_port_binding(context, done, host)
                raise exception.PortBindingFailed(port_id=port_id)
            bindings[port_id] = resp['binding']
        return bindings

    def activate_port_binding(self, context, port_id, host):
        try:
            self._client(context, admin=True)(
                'PUT', '/v2.0/ports/%s/bindings/%s/activate' % (port_id,
                                                                host))
        except NeutronClientError as exc:
            if exc.status == 409 and exc.kind == 'PortBindingAlreadyActive':
                LOG.debug('Binding of %s on %s already active', port_id,
                          host)
                return
            raise exception.PortBindingActivationFailed(port_id=port_id,
                                                        host=host)

    def activate_port_bindings(self, context, instance, host):
        for port_id in self._instance_port_ids(context, instance):
            self.activate_port_binding(context, port_id, host)

    def delete_port_binding(self, context, port_id, host):
        try:
            self._client(context, admin=True)(
                'DELETE', '/v2.0/ports/%s/bindings/%s' % (port_id, host))
        except NeutronClientError as exc:
            if exc.status != 404:
                raise exception.PortBindingDeletionFailed(port_id=port_id,
                                                          host=host)

    def delete_port_bindings(self, context, instance, host):
        """Drop the bindings of every port of ``instance`` on ``host``
        (a live migration that ended: the source's, or the destination's
        after a rollback)."""
        for port_id in self._instance_port_ids(context, instance):
            with _logged('removing binding of %s on %s' % (port_id, host)):
                self.delete_port_binding(context, port_id, host)

    def setup_networks_on_host(self, context, instance, host=None,
                               teardown=False):
        """Nothing to prepare: bindings carry the host with Neutron."""

    def unbind_ports_from_host(self, context, instance):
        """Every port of the server stays its own but bound to no host
        (a shelve offload: the server has no host until unshelved)."""
        admin = self._client(context, admin=True)
        for port_id in self._instance_port_ids(context, instance):
            self._unbind_port(admin, port_id, detach=False)
        LOG.info('Ports of instance %s unbound from their host',
                 instance.uuid)

    def cleanup_instance_network_on_host(self, context, instance, host):
        """Nothing to clean: the source binding goes with the migration."""

    def migrate_instance_start(self, context, instance, migration):
        """Nothing to do before the guest moves."""

    def setup_instance_network_on_host(self, context, instance, host,
                                       migration=None,
                                       provider_mappings=None):
        """Bind every port of ``instance`` to ``host`` (cold move)."""
        admin = self._client(context, admin=True)
        for port_id in self._instance_port_ids(context, instance):
            self._update_port(admin, port_id, {BINDING_HOST: host})
        return self._build_network_info(context, instance)

    def migrate_instance_finish(self, context, instance, migration,
                                provider_mappings=None):
        host = getattr(migration, 'dest_compute', None) or \
            migration['dest_compute']
        admin = self._client(context, admin=True)
        for port_id in self._instance_port_ids(context, instance):
            port = admin('GET', '/v2.0/ports/%s' % port_id)['port']
            if port.get(BINDING_HOST) == host:
                continue
            try:
                admin('PUT', '/v2.0/ports/%s/bindings/%s/activate'
                      % (port_id, host))
            except NeutronClientError:
                self._update_port(admin, port_id, {BINDING_HOST: host})
        return self._build_network_info(context, instance)

    # -- security groups ----------------------------------------------------

    def get_instances_security_groups_bindings(self, context, servers,
                                               detailed=False):
        """{server uuid: [{'name': ...}]} with two calls for all servers."""
        ids = [s['id'] if isinstance(s, dict) else s.uuid for s in servers]
        result = {uuid: [] for uuid in ids}
        if not ids:
            return result
        client = self._client(context)
        ports = client('GET', '/v2.0/ports', params={
            'device_id': ids,
            'fields': ['device_id', 'security_groups']})['ports']
        sg_ids = sorted({g for p in ports for g in p['security_groups']})
        groups = {}
        if sg_ids:
            groups = {g['id']: g for g in client(
                'GET', '/v2.0/security-groups',
                params={'id': sg_ids})['security_groups']}
        for port in ports:
            names = result.setdefault(port['device_id'], [])
            for sg_id in port['security_groups']:
                group = groups.get(sg_id)
                if group is None:
                    continue
                entry = group if detailed else {'name': group['name']}
                if entry not in names:
                    names.append(entry)
        return result

    def _instance_ports_and_group(self, context, instance, name):
        client = self._client(context)
        sg_id = self._security_group_ids(context, client,
                                         context.project_id, [name])[0]
        ports = client('GET', '/v2.0/ports', params={
            'device_id': instance.uuid})['ports']
        if not ports:
            raise exception.SecurityGroupNotFound(
                message='instance_id %s could not be found as device id on '
                        'any ports' % instance.uuid)
        return client, sg_id, ports

    def add_to_instance(self, context, instance, security_group_name):
        """Add the project's group ``security_group_name`` to every port
        of the server."""
        client, sg_id, ports = self._instance_ports_and_group(
            context, instance, security_group_name)
        for port in ports:
            if not port.get('port_security_enabled', True):
                raise exception.SecurityGroupCannotBeApplied()
            groups = list(port.get('security_groups') or [])
            if sg_id in groups:
                continue
            self._update_port(client, port['id'],
                              {'security_groups': groups + [sg_id]})
        LOG.info('Security group %s added to instance %s',
                 security_group_name, instance.uuid)

    def remove_from_instance(self, context, instance, security_group_name):
        """Take the group off every port of the server that has it."""
        client, sg_id, ports = self._instance_ports_and_group(
            context, instance, security_group_name)
        found = False
        for port in ports:
            groups = list(port.get('security_groups') or [])
            if sg_id not in groups:
                continue
            groups.remove(sg_id)
            self._update_port(client, port['id'],
                              {'security_groups': groups})
            found = True
        if not found:
            raise exception.SecurityGroupNotFound(
                message='Security group %s not associated with the '
                        'instance %s' % (security_group_name, instance.uuid))
        LOG.info('Security group %s removed from instance %s',
                 security_group_name, instance.uuid)

    def get_instance_security_groups(self, context, instance,
                                     detailed=False):
        return self.get_instances_security_groups_bindings(
            context, [instance], detailed=detailed).get(instance.uuid, [])


def _vif(port, net, subnets, preserve, floating):
    """``floating``: {(port id, fixed address): [floating addresses]}."""
    ips_by_subnet = {}
    for ip in port.get('fixed_ips', []):
        ips_by_subnet.setdefault(ip['subnet_id'], []).append(ip['ip_address'])
    model_subnets = []
    for subnet_id, addresses in ips_by_subnet.items():
        sub = subnets.get(subnet_id)
        if sub is None:
            continue
        version = sub.get('ip_version', 4)
        gateway = None
        if sub.get('gateway_ip'):
            gateway = {'address': sub['gateway_ip'], 'type': 'gateway',
                       'version': version}
        model_subnets.append({
            'cidr': sub['cidr'], 'version': version, 'gateway': gateway,
            'ips': [{'address': a, 'type': 'fixed', 'version': version,
                     'floating_ips': [
                         {'address': f, 'type': 'floating', 'version': 4}
                         for f in floating.get((port['id'], a), ())]}
                    for a in addresses],
            'dns': [{'address': d, 'type': 'dns', 'version': version}
                    for d in sub.get('dns_nameservers', [])],
            'routes': [], 'meta': {'dhcp_server': None}})
    vif_type = port.get('binding:vif_type') or model.VIF_TYPE_UNBOUND
    network = {
        'id': port['network_id'], 'label': net.get('name'),
        'bridge': 'br-int' if vif_type == model.VIF_TYPE_OVS else None,
        'subnets': model_subnets,
        'meta': {'injected': False, 'tenant_id': port.get('tenant_id'),
                 'mtu': net.get('mtu'),
                 'physical_network': net.get('provider:physical_network'),
                 'tunneled': net.get('provider:network_type') in (
                     'vxlan', 'geneve', 'gre')}}
    return model.VIF(
        id=port['id'], address=port.get('mac_address'), network=network,
        type=vif_type, details=port.get('binding:vif_details') or {},
        devname=('tap' + port['id'])[:model.NIC_NAME_LEN],
        ovs_interfaceid=port['id'] if vif_type == model.VIF_TYPE_OVS
        else None,
        active=port.get('status') == 'ACTIVE',
        vnic_type=port.get('binding:vnic_type', model.VNIC_TYPE_NORMAL),
        profile=port.get('binding:profile') or {},
        preserve_on_delete=preserve)


def _cached_info(instance):
    cache = getattr(instance, 'info_cache', None) if _has(
        instance, 'info_cache') else None
    info = getattr(cache, 'network_info', None) if cache is not None else None
    try:
        return list(model.NetworkInfo.hydrate(info))
    except (TypeError, ValueError):
        return []


def _has(instance, name):
    checker = getattr(instance, 'obj_attr_is_set', None)
    if checker is None:
        return hasattr(instance, name)
    try:
        return checker(name)
    except Exception:
        return False


def _save_cache(instance, info, save=True):
    """Keep the instance's info cache in step, when it has one loaded."""
    if not _has(instance, 'info_cache'):
        return
    cache = getattr(instance, 'info_cache', None)
    if cache is None:
        return
    try:
        cache.network_info = info
        if save and hasattr(cache, 'save'):
            cache.save()
    except Exception as exc:
        LOG.warning('Could not save the network info cache of %s: %s',
                    getattr(instance, 'uuid', '?'), exc)
        LOG.debug('Info cache save failure', exc_info=True)


class _logged:
    """Run cleanup code, logging rather than raising its failures."""

    def __init__(self, what):
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is not None:
            LOG.warning('Failed %s: %s', self.what, exc)
        return True
