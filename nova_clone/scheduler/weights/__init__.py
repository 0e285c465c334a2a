"""Host weighers: rank the hosts the filters kept.

Each weigher gives a raw value per host; values are normalized to 0..1
across the hosts, multiplied by the weigher's multiplier and summed.  The
best host has the highest total.
"""


class WeighedHost:
    def __init__(self, obj, weight):
        self.obj = obj
        self.weight = weight

    def __repr__(self):
        return '<WeighedHost %s: %s>' % (self.obj, self.weight)


class BaseHostWeigher:
    minval = None
    maxval = None

    def weight_multiplier(self, host_state):
        return 1.0

    def _weigh_object(self, host_state, spec_obj):
        raise NotImplementedError()


def normalize(values, minval=None, maxval=None):
    values = list(values)
    if not values:
        return []
    lo = min(values) if minval is None else minval
    hi = max(values) if maxval is None else maxval
    if hi == lo:
        return [0.0] * len(values)
    return [(v - lo) / float(hi - lo) for v in values]


def all_weighers():
    from nova_clone.scheduler.weights import affinity
    from nova_clone.scheduler.weights import build_failure
    from nova_clone.scheduler.weights import cpu
    from nova_clone.scheduler.weights import disk
    from nova_clone.scheduler.weights import ram
    return {'RAMWeigher': ram.RAMWeigher, 'CPUWeigher': cpu.CPUWeigher,
            'DiskWeigher': disk.DiskWeigher,
            'BuildFailureWeigher': build_failure.BuildFailureWeigher,
            'ServerGroupSoftAffinityWeigher':
                affinity.ServerGroupSoftAffinityWeigher,
            'ServerGroupSoftAntiAffinityWeigher':
                affinity.ServerGroupSoftAntiAffinityWeigher}


def load_weighers(names):
    known = all_weighers()
    if 'all' in names:
        return [cls() for cls in known.values()]
    chosen = []
    for name in names:
        short = name.rsplit('.', 1)[-1]
        if short not in known:
            raise ValueError('Unknown weigher %s in [filter_scheduler] '
                             'weight_classes; available: %s'
                             % (name, ', '.join(sorted(known))))
        chosen.append(known[short]())
    return chosen


def weigh(weighers, host_states, spec_obj):
    """WeighedHost list, best first; ties keep the input order."""
    weighed = [WeighedHost(h, 0.0) for h in host_states]
    for weigher in weighers:
        raw = [weigher._weigh_object(w.obj, spec_obj) for w in weighed]
        for w, value in zip(weighed, normalize(raw, weigher.minval,
                                               weigher.maxval)):
            w.weight += weigher.weight_multiplier(w.obj) * value
    return sorted(weighed, key=lambda w: -w.weight)
