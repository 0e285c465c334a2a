"""Versioned objects: the only way services read and write data.

Importing a module registers its classes, and the registry publishes each
one here (``objects.Instance``).  Call ``register_all()`` once at start-up.
"""


def register_all():
    """Import every object module so that all classes are registered."""
    import importlib
    for name in _MODULES:
        importlib.import_module('nova_clone.objects.' + name)


# --- object modules --------------------------------------------------------
# API-database objects (data-layer helper):
_MODULES = [
    'cell_mapping',
    'host_mapping',
    'instance_mapping',
    'flavor',
    'keypair',
    'build_request',
    'request_spec',
    'image_meta',
    'selection',
]
# Cell-database objects (cell-objects helper): append module names here.
_MODULES += [
    'block_device',
    'compute_node',
    'instance',
    'instance_action',
    'instance_fault',
    'instance_info_cache',
    'migration',
    'migrate_data',
    'service',
    'tag',
]
# --- end of object modules -------------------------------------------------
