"""Schemas of the suspend and resume actions."""

from nova_clone.api.schemas import parameter_types as pt

suspend = pt.server_action('suspend')
resume = pt.server_action('resume')
