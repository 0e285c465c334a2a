"""Security groups and quotas of the Neutron stand-in (a mixin of NeutronApp).

Every project gets a 'default' group (ingress from itself, all egress)
the first time it is needed; quotas are defaults an admin may override per
project, with usage counted live.
"""

import uuid

from nova_clone.peers import web

QUOTAS = {'network': 100, 'subnet': 100, 'port': 500, 'router': 10,
          'floatingip': 50, 'security_group': 10,
          'security_group_rule': 100, 'rbac_policy': 10, 'subnetpool': -1}
# Per-project limits an admin set (PUT /v2.0/quotas/{project_id}).
QUOTA_TABLE = 'neutron_quotas'
# The resources whose usage the details report, and where they live.
COUNTED_TABLES = {'network': 'neutron_networks', 'subnet': 'neutron_subnets',
                  'port': 'neutron_ports',
                  'security_group': 'neutron_security_groups',
                  'router': 'neutron_routers',
                  'floatingip': 'neutron_floatingips'}


def neutron_error(status, kind, message):
    return web.PeerError(status, message, kind)


class GroupsMixin:

    # -- security groups ---------------------------------------------------

    def ensure_default_sg(self, project_id):
        """Every project has a 'default' group, made on first use."""
        if not project_id:
            return None
        # Asked on every network listing: look without the write lock.
        for sg in self.store.all('neutron_security_groups',
                                 project_id=project_id):
            if sg['name'] == 'default':
                return sg
        with self.store.transaction():
            for sg in self.store.all('neutron_security_groups',
                                     project_id=project_id):
                if sg['name'] == 'default':
                    return sg
            sg = self._new_sg(project_id, 'default',
                              'Default security group', default=True)
            self.store.add('neutron_security_groups', sg,
                           project_id=project_id)
            return sg

    def _new_sg(self, project_id, name, description, default=False):
        sg = {'name': name, 'description': description, 'stateful': True,
              'shared': False, 'security_group_rules': []}
        self.stamp(sg, project_id, create=True)
        rules = []
        for ethertype in ('IPv4', 'IPv6'):
            rules.append(('egress', ethertype, None))
            if default:
                rules.append(('ingress', ethertype, sg['id']))
        for direction, ethertype, remote in rules:
            sg['security_group_rules'].append(_rule(
                sg, {'direction': direction, 'ethertype': ethertype,
                     'remote_group_id': remote}, default))
        return sg

    def list_security_group(self, req):
        self.ensure_default_sg(req.caller.project_id)
        return web.json_response({'security_groups': self.filtered(
            req, self.store.all('neutron_security_groups'),
            lambda r, s: s)})

    def show_security_group(self, req, ident):
        return self.show_one(req, 'security_group', self.get_visible(
            req, 'neutron_security_groups', 'SecurityGroup', ident))

    def create_security_group(self, req):
        values = self.body_of(req, 'security_group')
        owner = self.owner_of(req, values)
        if values.get('name') == 'default':
            raise neutron_error(409, 'SecurityGroupDefaultAlreadyExists',
                                'Default security group already exists.')
        self.ensure_default_sg(owner)
        sg = self._new_sg(owner, values.get('name', ''),
                          values.get('description', ''))
        self.store.add('neutron_security_groups', sg, project_id=owner)
        return web.json_response({'security_group': sg}, status=201)

    def update_security_group(self, req, ident):
        values = self.body_of(req, 'security_group')
        with self.store.transaction():
            sg = self.get_visible(req, 'neutron_security_groups',
                                  'SecurityGroup', ident)
            self.check_owner(req, sg)
            for key in ('name', 'description'):
                if key in values:
                    sg[key] = values[key]
            self.store.put('neutron_security_groups', self.stamp(sg))
        return web.json_response({'security_group': sg})

    def delete_security_group(self, req, ident):
        with self.store.transaction():
            sg = self.get_visible(req, 'neutron_security_groups',
                                  'SecurityGroup', ident)
            self.check_owner(req, sg)
            if sg['name'] == 'default' and not req.caller.is_admin:
                raise neutron_error(409, 'SecurityGroupCannotRemoveDefault',
                                    'Insufficient rights for removing '
                                    'default security group.')
            for port in self.store.all('neutron_ports'):
                if ident in port.get('security_groups', []):
                    raise neutron_error(
                        409, 'SecurityGroupInUse',
                        'Security Group %s in use.' % ident)
            self.store.delete('neutron_security_groups', ident)
            # Rules that let this group in go with it, as in Neutron.
            for other in self.store.all('neutron_security_groups'):
                kept = [r for r in other['security_group_rules']
                        if r.get('remote_group_id') != ident]
                if len(kept) != len(other['security_group_rules']):
                    other['security_group_rules'] = kept
                    self.store.put('neutron_security_groups',
                                   self.stamp(other))
        return web.empty_response(204)

    def list_sg_rules(self, req):
        rules = []
        for sg in self.store.all('neutron_security_groups'):
            if self.visible(req, sg):
                rules.extend(sg['security_group_rules'])
        for key in ('security_group_id', 'direction', 'ethertype'):
            if key in req.GET:
                rules = [r for r in rules if r[key] == req.GET[key]]
        return web.json_response({'security_group_rules': rules})

    def _find_rule(self, req, ident):
        for sg in self.store.all('neutron_security_groups'):
            for rule in sg['security_group_rules']:
                if rule['id'] == ident and self.visible(req, sg):
                    return sg, rule
        raise neutron_error(404, 'SecurityGroupRuleNotFound',
                            'Security group rule %s does not exist' % ident)

    def show_sg_rule(self, req, ident):
        return self.show_one(req, 'security_group_rule',
                             self._find_rule(req, ident)[1])

    def create_sg_rule(self, req):
        values = self.body_of(req, 'security_group_rule')
        _check_rule(values)
        with self.store.transaction():
            sg = self.get_visible(req, 'neutron_security_groups',
                                  'SecurityGroup',
                                  values.get('security_group_id') or '')
            self.check_owner(req, sg)
            if values.get('remote_group_id'):
                self.get_visible(req, 'neutron_security_groups',
                                 'SecurityGroup', values['remote_group_id'])
            rule = _rule(sg, values, sg['name'] == 'default')
            for other in sg['security_group_rules']:
                if all(other[k] == rule[k] for k in RULE_IDENTITY):
                    raise neutron_error(
                        409, 'SecurityGroupRuleExists', 'Security group rule'
                        ' already exists. Rule id is %s.' % other['id'])
            used = sum(len(g['security_group_rules']) for g in
                       self.store.all('neutron_security_groups',
                                      project_id=sg['project_id']))
            limit = self.quota_limits(sg['project_id'])['security_group_rule']
            if 0 <= limit <= used:
                raise neutron_error(409, 'OverQuota', "Quota exceeded for "
                                    "resources: ['security_group_rule'].")
            sg['security_group_rules'].append(rule)
            self.store.put('neutron_security_groups', self.stamp(sg))
        return web.json_response({'security_group_rule': rule}, status=201)

    def delete_sg_rule(self, req, ident):
        with self.store.transaction():
            found, rule = self._find_rule(req, ident)
            self.check_owner(req, found)
            sg = self.store.get('neutron_security_groups', found['id'])
            sg['security_group_rules'] = [
                r for r in sg['security_group_rules'] if r['id'] != ident]
            self.store.put('neutron_security_groups', self.stamp(sg))
        return web.empty_response(204)

    # -- quotas ------------------------------------------------------------

    def _check_quota_target(self, req, project_id):
        if not req.caller.is_admin and project_id != req.caller.project_id:
            raise neutron_error(403, 'HTTPForbidden', 'Non-admin is not '
                                'authorized to access quotas for another '
                                'project')

    def _check_quota_admin(self, req, action):
        if not req.caller.is_admin:
            raise neutron_error(403, 'HTTPForbidden',
                                '(rule:%s_quota) is disallowed by policy'
                                % action)

    def quota_limits(self, project_id):
        """The project's limits: the defaults, then what an admin set."""
        limits = dict(QUOTAS)
        doc = self.store.get(QUOTA_TABLE, project_id) if project_id else None
        if doc is not None:
            limits.update(doc['limits'])
        return limits

    def _quota_view(self, project_id, limits):
        return dict(limits, project_id=project_id, tenant_id=project_id)

    def list_quotas(self, req):
        """Projects with limits of their own (all of them for an admin)."""
        docs = self.store.all(QUOTA_TABLE)
        if not req.caller.is_admin:
            docs = [d for d in docs if d['id'] == req.caller.project_id]
        return web.json_response({'quotas': [
            self._quota_view(d['id'], self.quota_limits(d['id']))
            for d in docs]})

    def show_quota(self, req, project_id):
        self._check_quota_target(req, project_id)
        return web.json_response({'quota': self.quota_limits(project_id)})

    def show_default_quota(self, req, project_id):
        self._check_quota_target(req, project_id)
        return web.json_response({'quota': dict(QUOTAS)})

    def update_quota(self, req, project_id):
        self._check_quota_admin(req, 'update')
        body = req.json_body_or_400()
        values = body.get('quota') if isinstance(body, dict) else None
        if not isinstance(values, dict):
            raise neutron_error(400, 'HTTPBadRequest',
                                'Resource body required')
        unknown = sorted(set(values) - set(QUOTAS))
        if unknown:
            raise neutron_error(400, 'HTTPBadRequest',
                                "Unrecognized attribute(s) '%s'"
                                % ', '.join(unknown))
        limits = {key: _quota_value(value) for key, value in values.items()}
        with self.store.transaction():
            doc = self.store.get(QUOTA_TABLE, project_id)
            if doc is None:
                self.store.add(QUOTA_TABLE, {'id': project_id,
                                             'limits': limits},
                               project_id=project_id)
            else:
                doc['limits'].update(limits)
                self.store.put(QUOTA_TABLE, doc)
        return web.json_response({'quota': self.quota_limits(project_id)})

    def delete_quota(self, req, project_id):
        self._check_quota_admin(req, 'delete')
        self.store.delete(QUOTA_TABLE, project_id)
        return web.empty_response(204)

    def quota_details(self, req, project_id):
        self._check_quota_target(req, project_id)
        # Counted by the database: a boot asks this once per request, and
        # a project may have thousands of ports.
        counts = self.store.counts(COUNTED_TABLES.values(), project_id)
        used = {kind: counts[table] for kind, table in COUNTED_TABLES.items()}
        return web.json_response({'quota': {
            key: {'limit': limit, 'used': used.get(key, 0), 'reserved': 0}
            for key, limit in self.quota_limits(project_id).items()}})


# What makes two rules of a group the same rule.
RULE_IDENTITY = ('direction', 'ethertype', 'protocol', 'port_range_min',
                 'port_range_max', 'remote_ip_prefix', 'remote_group_id')
PROTOCOLS = ('ah', 'dccp', 'egp', 'esp', 'gre', 'icmp', 'icmpv6', 'igmp',
             'ipip', 'ipv6-icmp', 'ospf', 'pgm', 'rsvp', 'sctp', 'tcp',
             'udp', 'udplite', 'vrrp', 'any')


def _check_rule(values):
    def bad(message):
        return neutron_error(400, 'BadRequest', message)
    if values.get('direction') not in ('ingress', 'egress'):
        raise bad("Invalid input for direction. Reason: %r is not in "
                  "['ingress', 'egress']." % (values.get('direction'),))
    if values.get('ethertype', 'IPv4') not in ('IPv4', 'IPv6'):
        raise bad("Invalid input for ethertype. Reason: %r is not in "
                  "['IPv4', 'IPv6']." % (values['ethertype'],))
    protocol = values.get('protocol')
    if protocol is not None and str(protocol).lower() not in PROTOCOLS and \
            not (str(protocol).isdigit() and 0 <= int(protocol) <= 255):
        raise neutron_error(400, 'SecurityGroupRuleInvalidProtocol',
                            'Security group rule protocol %s not supported.'
                            % protocol)
    low, high = values.get('port_range_min'), values.get('port_range_max')
    if low is not None and high is not None and low > high:
        raise neutron_error(400, 'SecurityGroupInvalidPortRange',
                            'For TCP/UDP protocols, port_range_min must be <='
                            ' port_range_max')
    if values.get('remote_ip_prefix') and values.get('remote_group_id'):
        raise neutron_error(400, 'SecurityGroupRemoteGroupAndRemoteIpPrefix',
                            'Only remote_ip_prefix or remote_group_id may be '
                            'provided.')


def _rule(sg, values, default=False):
    """A rule of ``sg`` as Neutron shows it."""
    project_id = sg['project_id']
    return {'id': str(uuid.uuid4()), 'security_group_id': sg['id'],
            'direction': values['direction'],
            'ethertype': values.get('ethertype', 'IPv4'),
            'protocol': values.get('protocol'),
            'port_range_min': values.get('port_range_min'),
            'port_range_max': values.get('port_range_max'),
            'remote_ip_prefix': values.get('remote_ip_prefix'),
            'remote_group_id': values.get('remote_group_id'),
            'remote_address_group_id': None,
            'normalized_cidr': values.get('remote_ip_prefix'),
            'description': values.get('description', ''),
            'tenant_id': project_id, 'project_id': project_id,
            'created_at': web.isotime(), 'updated_at': web.isotime(),
            'revision_number': 0, 'tags': [],
            'belongs_to_default_sg': default}


def _quota_value(value):
    """A limit as Neutron accepts it: an integer of -1 (unlimited) or more."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or isinstance(value, (bool, float)) or \
            str(number) != str(value).strip():
        raise neutron_error(400, 'HTTPBadRequest',
                            "Invalid input for operation: '%s' is not an "
                            "integer." % (value,))
    if number < -1:
        raise neutron_error(400, 'HTTPBadRequest',
                            "Invalid input for operation: '%s' is too small "
                            "- must be at least '-1'." % (value,))
    return number
