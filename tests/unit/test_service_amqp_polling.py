"""Services raise the shortest idle wait of oslo.messaging's AMQP loops.

After each message the library's consumer loops time out after 1 ms,
2 ms, 4 ms... only to flush acks; a service sets a floor so a busy one
does not spend its CPU on those wake-ups.
"""

from oslo_messaging._drivers import amqpdriver

from nova_clone import service


def test_the_floor_is_raised(monkeypatch):
    monkeypatch.setattr(amqpdriver, 'ACK_REQUEUE_EVERY_SECONDS_MIN', 0.001)
    service._relax_amqp_idle_polling()
    assert amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN == \
        service.AMQP_IDLE_POLL_MIN
    # Still well under the library's longest wait, so acks keep flowing.
    assert service.AMQP_IDLE_POLL_MIN < \
        amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MAX


def test_a_higher_value_is_left_alone(monkeypatch):
    monkeypatch.setattr(amqpdriver, 'ACK_REQUEUE_EVERY_SECONDS_MIN', 1.0)
    service._relax_amqp_idle_polling()
    assert amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MIN == 1.0
