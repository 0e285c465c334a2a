import contextvars

from oslo_context import context as oslo_context

from nova_clone import context as nova_context
from nova_clone import threads

_MARK = contextvars.ContextVar('mark', default=None)


def test_spawned_thread_sees_the_starters_context():
    ctx = nova_context.RequestContext(user_id='u', project_id='p')
    ctx.update_store()
    _MARK.set('from-starter')
    seen = {}

    def work(arg, key=None):
        seen['args'] = (arg, key)
        seen['mark'] = _MARK.get()
        seen['request_id'] = oslo_context.get_current().request_id

    threads.spawn(work, 1, key=2, name='t').join(5)
    assert seen == {'args': (1, 2), 'mark': 'from-starter',
                    'request_id': ctx.request_id}
