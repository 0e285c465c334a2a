"""Schemas of /images/{image_id}/metadata (the same shapes as server
metadata, as in Nova)."""

from nova_clone.api.schemas import server_metadata

create = server_metadata.create
update_all = server_metadata.update_all
update = server_metadata.update
