"""Versioned objects: the only way services read and write data.

Importing a module registers its classes, and the registry publishes each
one here (``objects.Instance``).  Call ``register_all()`` once at start-up.
"""


def register_all():
    """Import every object module so that all classes are registered."""
    # API-database objects.
    from nova_clone.objects import aggregate  # noqa: F401
    from nova_clone.objects import build_request  # noqa: F401
    from nova_clone.objects import cell_mapping  # noqa: F401
    from nova_clone.objects import flavor  # noqa: F401
    from nova_clone.objects import host_mapping  # noqa: F401
    from nova_clone.objects import image_meta  # noqa: F401
    from nova_clone.objects import instance_group  # noqa: F401
    from nova_clone.objects import instance_mapping  # noqa: F401
    from nova_clone.objects import keypair  # noqa: F401
    from nova_clone.objects import request_spec  # noqa: F401
    from nova_clone.objects import selection  # noqa: F401
    # Cell-database objects.
    from nova_clone.objects import block_device  # noqa: F401
    from nova_clone.objects import compute_node  # noqa: F401
    from nova_clone.objects import console_auth_token  # noqa: F401
    from nova_clone.objects import instance  # noqa: F401
    from nova_clone.objects import instance_action  # noqa: F401
    from nova_clone.objects import instance_fault  # noqa: F401
    from nova_clone.objects import instance_info_cache  # noqa: F401
    from nova_clone.objects import migrate_data  # noqa: F401
    from nova_clone.objects import migration  # noqa: F401
    from nova_clone.objects import service  # noqa: F401
    from nova_clone.objects import tag  # noqa: F401
    from nova_clone.objects import task_log  # noqa: F401
