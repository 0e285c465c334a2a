"""Policies of /os-aggregates: administrators only."""

from nova_clone.policies import base

AGGREGATES = 'os_compute_api:os-aggregates:%s'
IMAGES = 'compute:aggregates:images'
_ONE = '/os-aggregates/{aggregate_id}'

rules = [
    base.rule(AGGREGATES % 'index', base.ADMIN, 'List host aggregates',
              [('GET', '/os-aggregates')]),
    base.rule(AGGREGATES % 'create', base.ADMIN, 'Create a host aggregate',
              [('POST', '/os-aggregates')]),
    base.rule(AGGREGATES % 'show', base.ADMIN, 'Show a host aggregate',
              [('GET', _ONE)]),
    base.rule(AGGREGATES % 'update', base.ADMIN, 'Update a host aggregate',
              [('PUT', _ONE)]),
    base.rule(AGGREGATES % 'delete', base.ADMIN, 'Delete a host aggregate',
              [('DELETE', _ONE)]),
    base.rule(AGGREGATES % 'add_host', base.ADMIN,
              'Add a host to an aggregate',
              [('POST', _ONE + '/action (add_host)')]),
    base.rule(AGGREGATES % 'remove_host', base.ADMIN,
              'Remove a host from an aggregate',
              [('POST', _ONE + '/action (remove_host)')]),
    base.rule(AGGREGATES % 'set_metadata', base.ADMIN,
              'Set the metadata of an aggregate',
              [('POST', _ONE + '/action (set_metadata)')]),
    base.rule(IMAGES, base.ADMIN,
              'Pre-cache images on the hosts of an aggregate',
              [('POST', _ONE + '/images')]),
]


def list_rules():
    return rules
