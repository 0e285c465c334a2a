"""/os-security-groups and /os-security-group-rules (Neutron proxies, to
2.35; 404 above), a server's groups (/servers/{id}/os-security-groups) and
the addSecurityGroup / removeSecurityGroup actions (202).

Groups show only their ingress rules, in nova-network's shape
(ip_protocol, from_port/to_port, ip_range or group).
"""

import netaddr
from oslo_utils import uuidutils
import webob.exc

from nova_clone.api import auth
from nova_clone.api import common
from nova_clone.api.controllers import neutron_proxy
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import security_groups as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import security_groups as sg_policies

SG = sg_policies.BASE


def _not_found(ident):
    return 'Security group %s not found.' % ident


def _checked_id(ident):
    """Neutron's ids are UUIDs: anything else is the client's mistake
    (400), not a missing group."""
    if not uuidutils.is_uuid_like(ident):
        raise common.bad_request('Security group id should be uuid')
    return ident


def _rule_view(rule, groups):
    protocol = rule['protocol']
    low, high = rule['port_range_min'], rule['port_range_max']
    if protocol and low is None and high is None:
        low, high = (1, 65535) if protocol.upper() in ('TCP', 'UDP') \
            else (-1, -1)
    view = {'id': rule['id'], 'parent_group_id': rule['security_group_id'],
            'ip_protocol': protocol, 'from_port': low, 'to_port': high,
            'group': {}, 'ip_range': {}}
    if rule['remote_group_id']:
        remote = groups.get(rule['remote_group_id'], {})
        view['group'] = {'name': remote.get('name'),
                         'tenant_id': remote.get('project_id')}
    else:
        view['ip_range'] = {'cidr': rule['remote_ip_prefix'] or
                            ('0.0.0.0/0' if rule['ethertype'] == 'IPv4'
                             else '::/0')}
    return view


def _group_view(group, groups):
    return {'id': group['id'], 'name': group['name'],
            'description': group['description'],
            'tenant_id': group['project_id'],
            'rules': [_rule_view(r, groups)
                      for r in group.get('security_group_rules', [])
                      if r['direction'] == 'ingress']}


def _all_groups(neutron):
    return {g['id']: g for g in neutron(
        'GET', '/v2.0/security-groups')['security_groups']}


class SecurityGroupController(object):

    def _get(self, neutron, ident):
        return neutron('GET', '/v2.0/security-groups/%s' % ident,
                       not_found=_not_found(ident))['security_group']

    @resource.api_version(None, '2.35')
    def index(self, req):
        context = auth.get_context(req)
        context.can(SG % 'get')
        neutron = neutron_proxy.Neutron(context)
        params = {}
        if not (context.is_admin and common.parse_bool(
                req.GET.get('all_tenants', 'false'), 'all_tenants')):
            params['tenant_id'] = context.project_id
        groups = neutron('GET', '/v2.0/security-groups',
                         params=params)['security_groups']
        known = _all_groups(neutron)
        limit, marker = common.get_limit_and_marker(req)
        groups = groups[:limit]
        return {'security_groups': [_group_view(g, known) for g in groups]}

    @resource.api_version(None, '2.35')
    def show(self, req, security_group_id):
        context = auth.get_context(req)
        context.can(SG % 'show')
        neutron = neutron_proxy.Neutron(context)
        group = self._get(neutron, _checked_id(security_group_id))
        return {'security_group': _group_view(group, _all_groups(neutron))}

    @resource.api_version(None, '2.35')
    @validation.schema(schema.create)
    def create(self, req, body):
        context = auth.get_context(req)
        context.can(SG % 'create')
        values = body['security_group']
        group = neutron_proxy.Neutron(context)(
            'POST', '/v2.0/security-groups', json={'security_group': {
                'name': values['name'],
                'description': values['description']}})['security_group']
        return {'security_group': _group_view(group, {})}

    @resource.api_version(None, '2.35')
    @validation.schema(schema.update)
    def update(self, req, security_group_id, body):
        context = auth.get_context(req)
        context.can(SG % 'update')
        values = body['security_group']
        neutron = neutron_proxy.Neutron(context)
        group = neutron('PUT', '/v2.0/security-groups/%s'
                        % _checked_id(security_group_id),
                        not_found=_not_found(
                            security_group_id),
                        json={'security_group': {
                            'name': values['name'],
                            'description': values['description']}})
        return {'security_group': _group_view(group['security_group'],
                                              _all_groups(neutron))}

    @resource.api_version(None, '2.35')
    @resource.response(202)
    def delete(self, req, security_group_id):
        context = auth.get_context(req)
        context.can(SG % 'delete')
        neutron_proxy.Neutron(context)(
            'DELETE', '/v2.0/security-groups/%s'
            % _checked_id(security_group_id),
            not_found=_not_found(security_group_id))


def _port(value, name):
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise common.bad_request('%s is not an integer' % name)


def _neutron_rule(values):
    """Nova's rule fields as a Neutron rule (ingress)."""
    cidr, group_id = values.get('cidr'), values.get('group_id')
    if cidr and group_id:
        raise common.bad_request('Not enough parameters to build a valid '
                                 'rule.')
    protocol = values.get('ip_protocol')
    low = _port(values.get('from_port'), 'from_port')
    high = _port(values.get('to_port'), 'to_port')
    if protocol is not None:
        protocol = str(protocol).lower()
        if protocol not in ('tcp', 'udp', 'icmp') and \
                not protocol.isdigit():
            raise common.bad_request('Invalid IP protocol %s.' % protocol)
        if protocol in ('tcp', 'udp'):
            if low is None or high is None or not 1 <= low <= high <= 65535:
                raise common.bad_request(
                    'Invalid port range %s:%s. Valid TCP ports should be '
                    'between 1-65535' % (low, high))
        elif protocol == 'icmp':
            if low == -1:
                low = None
            if high == -1:
                high = None
            if (low is not None and not 0 <= low <= 255) or \
                    (high is not None and not 0 <= high <= 255):
                raise common.bad_request(
                    'Invalid port range %s:%s. For ICMP, the type:code '
                    'must be valid' % (low, high))
    ethertype = 'IPv4'
    if cidr:
        try:
            ethertype = 'IPv%d' % netaddr.IPNetwork(cidr).version
        except (netaddr.AddrFormatError, ValueError):
            raise common.bad_request('Invalid cidr %s.' % cidr)
    elif not group_id:
        cidr = '0.0.0.0/0'
    return {'security_group_id': values['parent_group_id'],
            'direction': 'ingress', 'ethertype': ethertype,
            'protocol': protocol, 'port_range_min': low,
            'port_range_max': high, 'remote_ip_prefix': cidr,
            'remote_group_id': group_id}


class SecurityGroupRulesController(object):

    @resource.api_version(None, '2.35')
    @validation.schema(schema.create_rule)
    def create(self, req, body):
        context = auth.get_context(req)
        context.can(SG % 'rule:create')
        values = body['security_group_rule']
        neutron = neutron_proxy.Neutron(context)
        parent = _checked_id(values['parent_group_id'])
        neutron('GET', '/v2.0/security-groups/%s' % parent,
                not_found=_not_found(parent))
        if values.get('group_id'):
            neutron('GET', '/v2.0/security-groups/%s'
                    % _checked_id(values['group_id']),
                    not_found=_not_found(values['group_id']))
        try:
            rule = neutron.call('POST', '/v2.0/security-group-rules',
                                json={'security_group_rule':
                                      _neutron_rule(values)})
        except neutron_proxy.neutron.NeutronClientError as exc:
            if exc.kind == 'SecurityGroupRuleExists':
                raise common.bad_request(
                    'This rule already exists in group %s' % parent)
            raise neutron_proxy.http_error(exc)
        return {'security_group_rule': _rule_view(
            rule['security_group_rule'], _all_groups(neutron))}

    @resource.api_version(None, '2.35')
    @resource.response(202)
    def delete(self, req, rule_id):
        context = auth.get_context(req)
        context.can(SG % 'rule:delete')
        neutron_proxy.Neutron(context)(
            'DELETE', '/v2.0/security-group-rules/%s' % rule_id,
            not_found='Security group rule %s not found.' % rule_id)


class ServerSecurityGroupController(object):

    def index(self, req, server_id):
        context = auth.get_context(req)
        # 404 for another project's server, as every server sub-resource.
        instance = servers.get_server(req, server_id)
        context.can(SG % 'list', target={'project_id': instance.project_id})
        neutron = neutron_proxy.Neutron(context)
        ports = neutron('GET', '/v2.0/ports',
                        params={'device_id': server_id})['ports']
        ids = sorted({g for p in ports for g in p['security_groups']})
        known = _all_groups(neutron)
        return {'security_groups': [_group_view(known[i], known)
                                    for i in ids if i in known]}


class SecurityGroupActionController(object):

    @staticmethod
    def _change(req, server_id, rule, method, name):
        context, instance = servers.authorized_server(req, server_id, rule)
        try:
            getattr(servers.compute_api(), method)(context, instance, name)
        except exception.SecurityGroupNotFound as exc:
            raise webob.exc.HTTPNotFound(explanation=exc.format_message())
        except exception.NetworkAmbiguous as exc:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        except exception.SecurityGroupCannotBeApplied as exc:
            raise common.bad_request(exc.format_message())

    @resource.response(202)
    @resource.action('addSecurityGroup')
    @validation.schema(schema.add_security_group)
    def add_security_group(self, req, server_id, body):
        self._change(req, server_id, SG % 'add', 'add_security_group',
                     body['addSecurityGroup']['name'])

    @resource.response(202)
    @resource.action('removeSecurityGroup')
    @validation.schema(schema.remove_security_group)
    def remove_security_group(self, req, server_id, body):
        self._change(req, server_id, SG % 'remove', 'remove_security_group',
                     body['removeSecurityGroup']['name'])
