"""Schemas of /servers/{server_id}/os-volume_attachments."""

import copy

from nova_clone.api.schemas import parameter_types as pt

_DEVICE = {
    'type': ['string', 'null'],
    # A path under /dev, e.g. /dev/vdb or /dev/xvdc.
    'pattern': '(^/dev/x{0,1}[a-z]{0,1}d{0,1})([a-z]+)[0-9]*$',
}

create = {
    'type': 'object',
    'properties': {
        'volumeAttachment': {
            'type': 'object',
            'properties': {
                'volumeId': pt.volume_id,
                'device': _DEVICE,
            },
            'required': ['volumeId'],
            'additionalProperties': False,
        },
    },
    'required': ['volumeAttachment'],
    'additionalProperties': False,
}

create_v249 = copy.deepcopy(create)
create_v249['properties']['volumeAttachment']['properties']['tag'] = \
    pt.device_tag

create_v279 = copy.deepcopy(create_v249)
create_v279['properties']['volumeAttachment']['properties'][
    'delete_on_termination'] = pt.boolean

update = copy.deepcopy(create)
del update['properties']['volumeAttachment']['properties']['device']

# From 2.85 the body may repeat the attachment as shown (only
# delete_on_termination, or the volumeId of a swap, may differ).
update_v285 = copy.deepcopy(update)
update_v285['properties']['volumeAttachment']['properties'].update({
    'id': pt.volume_id,
    'serverId': pt.server_id,
    'device': _DEVICE,
    'tag': pt.device_tag,
    'delete_on_termination': pt.boolean,
})

index_query = {
    'type': 'object',
    'properties': {
        'limit': pt.multi_params(pt.non_negative_integer),
        'offset': pt.multi_params(pt.non_negative_integer),
    },
    'additionalProperties': True,
}

index_query_v275 = copy.deepcopy(index_query)
index_query_v275['additionalProperties'] = False
