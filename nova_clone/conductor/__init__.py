"""nova-conductor: object indirection for computes and the long flows.

``API()`` / ``ComputeTaskAPI()`` are what other services import.
"""

from nova_clone.conductor import api as conductor_api


def API():
    return conductor_api.API()


def ComputeTaskAPI():
    return conductor_api.ComputeTaskAPI()
