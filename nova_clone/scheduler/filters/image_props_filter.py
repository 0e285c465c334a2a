"""ImagePropertiesFilter: the host's hypervisor can run the image.

The image's hw_architecture, img_hv_type, hw_vm_mode and
img_hv_requested_version must match one of the host's supported
instances ((arch, hv_type, vm_mode) triples) and its hypervisor version.
"""

from nova_clone.scheduler import filters


def _prop(image_props, name):
    if image_props is None:
        return None
    if isinstance(image_props, dict):
        return image_props.get(name)
    if hasattr(image_props, 'obj_attr_is_set') and \
            not image_props.obj_attr_is_set(name):
        return None
    return getattr(image_props, name, None)


def _version_tuple(text):
    try:
        return tuple(int(p) for p in str(text).split('.'))
    except ValueError:
        return None


class ImagePropertiesFilter(filters.BaseHostFilter):

    run_filter_once_per_request = True

    def host_passes(self, host_state, spec_obj):
        image = getattr(spec_obj, 'image', None)
        props = getattr(image, 'properties', None) if image is not None \
            else None
        arch = _prop(props, 'hw_architecture')
        hv_type = _prop(props, 'img_hv_type')
        vm_mode = _prop(props, 'hw_vm_mode')
        wanted_version = _prop(props, 'img_hv_requested_version')
        if not any([arch, hv_type, vm_mode, wanted_version]):
            return True
        supported = host_state.supported_instances or []
        if any([arch, hv_type, vm_mode]):
            if not supported:
                return False
            ok = False
            for triple in supported:
                s_arch, s_hv, s_mode = (list(triple) + [None] * 3)[:3]
                if ((not arch or arch == s_arch) and
                        (not hv_type or hv_type == s_hv) and
                        (not vm_mode or vm_mode == s_mode)):
                    ok = True
                    break
            if not ok:
                return False
        if wanted_version:
            words = str(wanted_version).split()
            op, ver = (words[0], words[1]) if len(words) == 2 else \
                ('>=', words[0])
            have = host_state.hypervisor_version
            if have is None:
                return False
            want = _version_tuple(ver)
            if want is None:
                return False
            # Hypervisor versions are stored as ints like 1002003 = 1.2.3.
            have_t = (have // 1000000, (have // 1000) % 1000, have % 1000)
            want_t = (want + (0, 0, 0))[:3]
            checks = {'>=': have_t >= want_t, '>': have_t > want_t,
                      '<=': have_t <= want_t, '<': have_t < want_t,
                      '==': have_t == want_t, '=': have_t >= want_t}
            return checks.get(op, have_t >= want_t)
        return True
