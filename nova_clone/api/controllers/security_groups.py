"""A server's security groups: GET /servers/{id}/os-security-groups (the
groups of its ports, from Neutron) and the addSecurityGroup /
removeSecurityGroup actions (202)."""

import webob.exc

from nova_clone.api import common
from nova_clone.api.controllers import servers
from nova_clone.api import resource
from nova_clone.api.schemas import security_groups as schema
from nova_clone.api import validation
from nova_clone import exception
from nova_clone.policies import security_groups as policies


def _rule_view(rule, groups):
    view = {'id': rule['id'],
            'parent_group_id': rule['security_group_id'],
            'ip_protocol': rule.get('protocol'),
            'from_port': rule.get('port_range_min'),
            'to_port': rule.get('port_range_max'),
            'group': {}, 'ip_range': {}}
    if view['ip_protocol'] and view['from_port'] is None:
        view['from_port'] = view['to_port'] = -1
    remote = rule.get('remote_group_id')
    if remote:
        group = groups.get(remote, {})
        view['group'] = {'name': group.get('name'),
                         'tenant_id': group.get('tenant_id')}
    else:
        view['ip_range'] = {'cidr': rule.get('remote_ip_prefix') or (
            '::/0' if rule.get('ethertype') == 'IPv6' else '0.0.0.0/0')}
    return view


def _group_view(group, groups):
    # Nova shows the ingress rules only.
    return {'id': group['id'], 'name': group['name'],
            'description': group.get('description', ''),
            'tenant_id': group.get('tenant_id'),
            'rules': [_rule_view(r, groups)
                      for r in group.get('security_group_rules') or []
                      if r.get('direction') == 'ingress']}


class ServerSecurityGroupController(object):

    def index(self, req, server_id):
        context, instance = servers.authorized_server(
            req, server_id, policies.BASE % 'list')
        groups = servers.compute_api().network_api \
            .get_instance_security_groups(context, instance, detailed=True)
        by_id = {g['id']: g for g in groups}
        return {'security_groups': [_group_view(g, by_id)
                                    for g in groups]}


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
        self._change(req, server_id, policies.BASE % 'add',
                     'add_security_group',
                     body['addSecurityGroup']['name'])

    @resource.response(202)
    @resource.action('removeSecurityGroup')
    @validation.schema(schema.remove_security_group)
    def remove_security_group(self, req, server_id, body):
        self._change(req, server_id, policies.BASE % 'remove',
                     'remove_security_group',
                     body['removeSecurityGroup']['name'])
