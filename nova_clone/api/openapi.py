"""An OpenAPI 3.0 description of compute API v2.1, made from what the API
itself enforces: the route table (api/routes.py), the microversion range
of each method (@resource.api_version), the JSON Schemas of its bodies
(@validation.schema) and query strings (@validation.query_schema).

``build()`` describes every microversion at once: a body with several
schemas is a ``oneOf`` of them, each branch marked with its range in
``x-openstack-microversion``.  ``build('2.47')`` describes one
microversion: only the methods, actions and schemas in force then, so a
client or a fuzzer can generate requests from it directly.

``nova-clone openapi [--microversion X.Y] [--output FILE]`` writes it.
"""

import copy
import json
import re
import sys

from nova_clone.api import microversion
from nova_clone import version as nova_version

_PARAM_RE = re.compile(r'{(\w+)}')


def _range(func):
    return (getattr(func, 'api_min', None), getattr(func, 'api_max', None))


def _in_force(at, lo, hi):
    if at is None:
        return True
    return at.matches(lo, hi)


def _range_note(lo, hi):
    return {'min': lo or nova_version.MIN_API_VERSION,
            'max': hi or nova_version.MAX_API_VERSION}


def _body_schemas(func, at):
    """[(schema, lo, hi)] of a method's bodies in force at ``at``."""
    return [(copy.deepcopy(s), lo, hi)
            for s, lo, hi in getattr(func, '_body_schemas', [])
            if _in_force(at, lo, hi)]


def _one_of(choices):
    """One schema from several (schema, lo, hi) choices."""
    if len(choices) == 1:
        return choices[0][0]
    return {'oneOf': [dict(s, **{'x-openstack-microversion':
                                 _range_note(lo, hi)})
                      for s, lo, hi in choices]}


def _action_body(name, handler, at):
    choices = _body_schemas(handler, at)
    if choices:
        return choices
    # An action without a body schema takes its key with any value
    # (Nova ignores it: ``{"pause": null}``).
    return [({'type': 'object', 'properties': {name: {}},
              'required': [name], 'additionalProperties': False},
             None, None)]


def _request_body(func, at):
    from nova_clone.api import resource
    if isinstance(func, resource.Actions):
        choices = []
        for name, handler in sorted(func.handlers().items()):
            if _in_force(at, *_range(handler)):
                choices.extend(_action_body(name, handler, at))
        if not choices:
            return None
        return _one_of(choices) if len(choices) > 1 or at is None else \
            choices[0][0]
    choices = _body_schemas(func, at)
    if not choices:
        return None
    return _one_of(choices)


def _query_parameters(func, at):
    """The query parameters of the newest query schema in force."""
    schemas = [s for s, lo, hi in getattr(func, '_query_schemas', [])
               if _in_force(at, lo, hi)]
    if not schemas:
        return []
    params = []
    for name, prop in sorted(schemas[-1].get('properties', {}).items()):
        # Query schemas validate a dict of lists: a parameter's value
        # is described by the schema of its items.
        value = prop.get('items', prop) if prop.get('type') == 'array' \
            else prop
        params.append({'name': name, 'in': 'query', 'required': False,
                       'schema': copy.deepcopy(value) or {'type': 'string'}})
    return params


def _operation(template, method, func, at):
    from nova_clone.api.controllers import removed
    op = {
        'operationId': '%s %s' % (method, template),
        'x-openstack-microversion': _range_note(*_range(func)),
        'parameters': [
            {'name': p, 'in': 'path', 'required': True,
             'schema': {'type': 'string'}}
            for p in _PARAM_RE.findall(template)] +
        _query_parameters(func, at),
        'responses': {
            'default': {'description': 'Success, or a Nova fault body '
                        '({"badRequest": {"code": 400, "message": ...}})'}},
    }
    if template in removed.REMOVED:
        op['deprecated'] = True
        op['description'] = ('Removed from Nova in %s: always 410 Gone.'
                             % removed.REMOVED[template])
    if method in ('POST', 'PUT'):
        body = _request_body(func, at)
        if body is not None:
            op['requestBody'] = {
                'required': True,
                'content': {'application/json': {'schema': body}}}
    return op


def build(version=None):
    """The OpenAPI document; of one microversion when ``version`` is
    given, of them all otherwise."""
    from nova_clone.api import routes
    at = None if version is None else microversion.APIVersionRequest(version)
    paths = {}
    for template, methods in routes.ROUTES:
        ops = {}
        for method, func in sorted(methods.items()):
            if not _in_force(at, *_range(func)):
                continue
            ops[method.lower()] = _operation(template, method, func, at)
        if ops:
            paths['/v2.1' + template] = ops
    return {
        'openapi': '3.0.3',
        'info': {
            'title': 'Compute API (nova-clone)',
            'version': version or '%s - %s' % (
                nova_version.MIN_API_VERSION, nova_version.MAX_API_VERSION),
            'description': 'Send the microversion in the '
                           '"OpenStack-API-Version: compute X.Y" header.'},
        'components': {'securitySchemes': {'keystone': {
            'type': 'apiKey', 'in': 'header', 'name': 'X-Auth-Token'}}},
        'security': [{'keystone': []}],
        'paths': paths,
    }


def add_arguments(parser):
    parser.add_argument('--microversion', metavar='X.Y',
                        help='Describe only this microversion (default: '
                             'all, a body per range).')
    parser.add_argument('--output', metavar='FILE',
                        help='Write here instead of standard output.')


def run(args):
    doc = json.dumps(build(args.microversion), indent=2, sort_keys=True)
    if args.output:
        with open(args.output, 'w') as out:
            out.write(doc + '\n')
    else:
        sys.stdout.write(doc + '\n')
    return 0
