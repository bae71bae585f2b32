"""The parity check runs end to end here (cpu against cpu: zero difference) and reports a failure honestly."""

from attnviz.doctor import ParityReport, parity


def test_parity_on_cpu_is_exact():
    report = parity(model="minilm", device="cpu", text="Attention is all you need.")
    assert report.device == "cpu" and report.passed
    assert set(report.max_difference) == {"self"}
    assert len(report.max_difference["self"]) == 6 and report.worst == 0.0
    assert "PASS" in report.summary() and "torch" in report.summary()
    assert report.summary().splitlines()[-1].startswith("note: no accelerator was checked")  # not read as a device's


def test_a_large_difference_fails():
    report = ParityReport("npu:0", "m", "float16", {"torch": "x"}, {"cross": [1e-5, 0.3]}, tolerance=1e-2)
    assert not report.passed and report.summary().splitlines()[-1].startswith("FAIL")


def test_cli_devices_and_doctor(capsys):
    from attnviz.cli import main

    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert "device: cpu" in out and "npu" in out
    assert main(["devices", "--device", "npu"]) == 0
    assert "not available" in capsys.readouterr().out
    assert main(["doctor", "--model", "minilm", "--device", "cpu"]) == 0
    assert "PASS" in capsys.readouterr().out
    assert main(["doctor", "--model", "minilm", "--device", "npu"]) == 2
    assert "not available" in capsys.readouterr().err
