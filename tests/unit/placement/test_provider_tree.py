"""The local provider tree the compute and the report client share."""

import pytest

from nova_clone.placement import provider_tree


def test_roots_children_and_lookup():
    tree = provider_tree.ProviderTree()
    tree.new_root('node1', 'u1', generation=0)
    child = tree.new_child('node1_pf', 'node1', uuid='u2')
    assert child == 'u2'
    assert tree.get_provider_uuids() == ['u1', 'u2']
    assert tree.get_provider_uuids_in_tree('u2') == ['u1', 'u2']
    assert tree.data('node1_pf').parent_uuid == 'u1'
    with pytest.raises(ValueError):
        tree.new_root('again', 'u1')
    tree.remove('u2')
    assert not tree.exists('node1_pf')


def test_inventory_change_detection_fills_defaults():
    tree = provider_tree.ProviderTree()
    tree.new_root('n', 'u')
    inv = {'VCPU': {'total': 4}}
    assert tree.update_inventory('n', inv)
    assert not tree.has_inventory_changed(
        'n', {'VCPU': {'total': 4, 'reserved': 0, 'max_unit': 4,
                       'min_unit': 1, 'step_size': 1,
                       'allocation_ratio': 1.0}})
    assert tree.has_inventory_changed('n', {'VCPU': {'total': 8}})


def test_copy_is_independent():
    tree = provider_tree.ProviderTree()
    tree.new_root('n', 'u')
    clone = tree.copy()
    clone.add_traits('n', 'HW_CPU_X86_AVX2')
    assert tree.data('n').traits == set()
    assert clone.has_traits('n', ['HW_CPU_X86_AVX2'])


def test_populate_from_placement_json_parents_first():
    tree = provider_tree.ProviderTree()
    tree.populate_from_iterable([
        {'uuid': 'c', 'name': 'child', 'generation': 1,
         'parent_provider_uuid': 'r'},
        {'uuid': 'r', 'name': 'root', 'generation': 3,
         'parent_provider_uuid': None}])
    assert tree.data('c').parent_uuid == 'r'
    assert tree.data('root').generation == 3
