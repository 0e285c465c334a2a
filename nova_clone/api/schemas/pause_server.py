"""Schemas of the pause and unpause actions."""

from nova_clone.api.schemas import parameter_types as pt

pause = pt.server_action('pause')
unpause = pt.server_action('unpause')
