"""`engine.testing.measured`: a command run in a forked child, its output, peak memory and
time measured, and its outcome judged."""

from engine.testing import measured


def test_a_measured_child_reports_its_memory_time_and_words():
    big = measured.measured(lambda: len(bytearray(300 * 2**20)) and 0)
    small = measured.measured(lambda: print("frontier: error: x") or 2)
    assert big.code == 0 and big.peak_bytes > small.peak_bytes + 250 * 2**20
    assert measured.judged(small) == ("refused", "")
    slow = measured.measured(lambda: __import__("time").sleep(5) or 0, timeout_s=0.5)
    assert slow.code is None and measured.judged(slow)[0] == "bad"
    leak = measured.measured(lambda: print("frontier: error: x (KeyError: 'y')") or 2)
    assert measured.judged(leak) == ("bad", "Python's words ('Error:')")
