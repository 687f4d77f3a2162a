"""What the recording readers of identify and estimate refuse, and what they take: a time that
goes back by more than a logger's reordering (two recordings in one), times that are not
seconds, a column twice, positions in degrees; a spreadsheet's byte-order mark and a logger's
small reordering are taken."""

import numpy as np
import pytest

from robot_dynamics import RobotModel
from robot_dynamics.core.joint_data import DataError
from robot_dynamics.tools.bundled import bundled_urdf_path
from robot_dynamics.tools.cli import main as cli_main
from robot_dynamics.tools.identification_data import (
    MAX_BACKWARDS,
    check_units,
    merge_messages,
    read_csv,
    read_csv_rows,
)

NAMES = ("j1", "j2")


def _csv(path, t, bom=False, header=None):
    """A CSV of two joints at times ``t`` [s] (positions moving, efforts constant)."""
    header = header or ["time", "j1.position", "j2.position", "j1.effort", "j2.effort"]
    rows = [",".join(header)]
    rows += [f"{float(ti)!r},{0.1 * k},{-0.1 * k},1.0,2.0" for k, ti in enumerate(t)]
    path.write_text(("\ufeff" if bom else "") + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_time_going_back_more_than_a_reordering_is_two_recordings(tmp_path):
    t = np.arange(40) * 0.01
    t[25:] -= 1.0  # a logger restarted at row 27 (the header is row 1)
    with pytest.raises(DataError) as ei:
        read_csv(_csv(tmp_path / "restart.csv", t), NAMES)
    message = str(ei.value)
    assert "the time goes back by 0.99 s at row 27 (from 0.24 to -0.75 s)" in message
    assert "two recordings in one" in message
    # a logger's reordering (a message a few ms late) is sorted
    t = np.arange(40) * 0.01
    t[10], t[11] = t[11], t[10]
    samples = read_csv(_csv(tmp_path / "reordered.csv", t), NAMES)
    assert np.all(np.diff(samples.t) > 0.0)
    # the same for a bag's messages, in recording order
    seconds = np.r_[np.arange(10) * 0.01, 0.09 - 2 * MAX_BACKWARDS]  # the 11th goes back
    messages = [(int(s * 1e9), list(NAMES), np.zeros(2), np.zeros(2), np.ones(2)) for s in seconds]
    with pytest.raises(DataError, match="the time goes back by 1 s at message 11"):
        merge_messages(messages, NAMES, source="topic '/joint_states'")


def test_times_that_are_not_seconds_and_a_column_twice_are_refused(tmp_path):
    ns = 1.7e18 + np.arange(30) * 1e6  # nanoseconds since 1970
    with pytest.raises(DataError, match="'time' reaches 1.7e\\+18, beyond 1e\\+10 s: .*1e9"):
        read_csv_rows(_csv(tmp_path / "ns.csv", ns), NAMES, complete=False)
    header = ["time", "j1.position", "j2.position", "j1.effort", "j1.effort"]
    with pytest.raises(DataError, match=r"has the columns \['j1.effort'\] more than once"):
        read_csv_rows(_csv(tmp_path / "twice.csv", np.arange(30) * 0.01, header=header), NAMES)


def test_a_byte_order_mark_is_read_past(tmp_path):
    """Spreadsheets write UTF-8 with a byte-order mark before the 'time' header."""
    samples = read_csv(_csv(tmp_path / "excel.csv", np.arange(30) * 0.01, bom=True), NAMES)
    assert len(samples.t) == 30 and samples.t[-1] == pytest.approx(0.29)


def test_positions_in_degrees_are_refused(tmp_path, capsys):
    """A Panda recording with its positions in degrees: identify refuses it, naming the joint
    whose positions lie furthest beyond its limits; the same recording in rad is read."""
    model = RobotModel.from_urdf_file(bundled_urdf_path("panda"))
    names = list(model.joint_names)
    t = np.arange(200) * 0.01
    q = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]) + 0.3 * np.sin(t)[:, None]
    header = ["time"] + [f"{j}.position" for j in names] + [f"{j}.effort" for j in names]
    for label, positions in (("rad", q), ("deg", np.degrees(q))):
        rows = [",".join(header)] + [
            ",".join(repr(float(v)) for v in np.r_[t[k], positions[k], np.ones(7)])
            for k in range(len(t))
        ]
        (tmp_path / f"{label}.csv").write_text("\n".join(rows) + "\n")
    check_units(model, q)
    code = cli_main(
        ["identify", "panda", str(tmp_path / "deg.csv"), "--out", str(tmp_path / "x.urdf")]
    )
    err = capsys.readouterr().err
    assert code == 2 and f"joint 'panda_joint4' reaches {np.degrees(q[:, 3]).min():.6g}," in err, (
        err
    )
    assert (
        "beyond its limits [-3.0718, -0.0698] by more than twice their range: positions in degrees?"
        in err
    )
    assert not (tmp_path / "x.urdf").exists()
