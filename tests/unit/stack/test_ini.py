"""stack up rewrites its config files but keeps what an operator added."""

from nova_clone.stack import ini as stack_ini


def test_rewrite_keeps_operator_options(tmp_path):
    path = str(tmp_path / 'etc' / 'nova.conf')
    stack_ini.write(path, {'DEFAULT': {'debug': False, 'host': 'a'}})
    with open(path, 'a') as f:
        f.write('# why: slow disks\nreport_interval = 60\n'
                '[libvirt]\nvirt_type = kvm\n[empty]\n# only a comment\n')
    stack_ini.write(path, {'DEFAULT': {'debug': True, 'host': 'a'},
                           'libvirt': {'cpu_mode': 'none'}})
    with open(path) as f:
        text = f.read()
    assert text.splitlines() == [
        '[DEFAULT]', 'debug = true', 'host = a', '# why: slow disks',
        'report_interval = 60', '',
        '[libvirt]', 'cpu_mode = none', 'virt_type = kvm']


def test_options_the_stack_sets_are_not_duplicated(tmp_path):
    path = str(tmp_path / 'x.conf')
    stack_ini.write(path, {'DEFAULT': {'debug': False}})
    with open(path, 'a') as f:
        f.write('[DEFAULT]\ndebug = true\n')
    stack_ini.write(path, {'DEFAULT': {'debug': False}})
    with open(path) as f:
        assert f.read().count('debug') == 1
