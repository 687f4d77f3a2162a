"""ThrottledLog (plain pytest): each kind of message at most once per its period, through the
logger method its level names."""

import pytest
import rclpy.logging

from robot_dynamics.ros.throttled_log import ThrottledLog


class Recorder:
    def __init__(self):
        self.lines = []

    def __getattr__(self, level):
        return lambda message: self.lines.append((level, message))


def test_each_kind_is_logged_at_most_once_per_period():
    now = [100.0]
    logger = Recorder()
    log = ThrottledLog(logger, clock=lambda: now[0])
    assert log("refused", 5.0, "warning", "first")
    assert not log("refused", 5.0, "warning", "dropped")
    assert log("shed", 5.0, "error", "another kind")  # kinds do not throttle each other
    now[0] += 4.999
    assert not log("refused", 5.0, "warning", "still within the period")
    now[0] += 0.001
    assert log("refused", 5.0, "warning", "due again")
    assert not log("refused", 5.0, "warning", "dropped again")
    assert log("refused", 0.0, "info", "a period of 0 drops nothing")
    assert logger.lines == [
        ("warning", "first"),
        ("error", "another kind"),
        ("warning", "due again"),
        ("info", "a period of 0 drops nothing"),
    ]


def test_every_level_through_an_rclpy_logger(capfd):
    """rclpy refuses a calling line that changes severity: one log serves every level."""
    log = ThrottledLog(rclpy.logging.get_logger("throttled_log_test"))
    for level in ("info", "warning", "error", "info", "warning"):
        assert log(level + str(len(level)), 0.0, level, f"a message at {level}")
    err = capfd.readouterr().err
    assert err.count("a message at info") == 2 and err.count("a message at error") == 1
    with pytest.raises(ValueError, match="'fatal'"):
        log("k", 0.0, "fatal", "no such level here")
