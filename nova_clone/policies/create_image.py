"""Policies of the ``createImage`` server action."""

from nova_clone.policies import base
from nova_clone.policies import servers

CREATE_IMAGE = servers.SERVERS % 'create_image'
ALLOW_VOLUME_BACKED = servers.SERVERS % 'create_image:allow_volume_backed'

_ACTION = [('POST', '/servers/{server_id}/action (createImage)')]

rules = [
    base.rule(CREATE_IMAGE, base.PROJECT_MEMBER_OR_ADMIN,
              'Create an image from a server', _ACTION),
    base.rule(ALLOW_VOLUME_BACKED, base.PROJECT_MEMBER_OR_ADMIN,
              'Create an image from a volume-backed server', _ACTION),
]


def list_rules():
    return rules
