"""nova-conductor: object indirection for computes and the long flows.

``API()`` / ``ComputeTaskAPI()`` are what other services import.
"""


def API():
    from nova_clone.conductor import api
    return api.API()


def ComputeTaskAPI():
    from nova_clone.conductor import api
    return api.ComputeTaskAPI()
