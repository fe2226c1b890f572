"""tools/checks/kernel_families.py (`make test-kernels`): which families run, what the table says."""
import sys

from tools.checks import kernel_families as kf


def test_a_family_whose_instructions_the_cpu_lacks_is_skipped_with_the_reason(monkeypatch, capsys):
    monkeypatch.setattr(kf, "cpu_flags", lambda: {"sse4_2", "ssse3", "pni"})
    monkeypatch.setattr(kf, "run_suite", lambda *a: (_ for _ in ()).throw(AssertionError("must not run")))
    monkeypatch.setattr(sys, "argv", ["kernel_families.py", "--families", "SkylakeX,Haswell", "--suites", "fast"])
    assert kf.main() == 1  # nothing ran: not a pass
    out = capsys.readouterr().out
    assert "SkylakeX: skipped — this CPU lacks avx512f" in out and "Haswell: skipped — this CPU lacks avx2, fma" in out
    assert "skipped: no avx2, fma" in out.splitlines()[-1]


def test_each_run_reports_the_kernel_it_used_and_its_counts(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(kf, "cpu_flags", lambda: set().union(*kf.FAMILIES.values()))
    monkeypatch.setattr(kf, "probe", lambda env: {"kernel": f"openblas {env.get('OPENBLAS_CORETYPE', 'Haswell')}",
                                                  "dispatch": [], "all_dispatch": ["X86_V3"]})
    monkeypatch.setattr(kf, "run_suite", lambda name, env, *a: {"passed": 3, "failed": 0, "skipped": 1, "rc": 0,
                                                               "seconds": 2.0})
    monkeypatch.setattr(sys, "argv", ["kernel_families.py", "--families", "Nehalem,Zen,numpy-baseline",
                                      "--suites", "fast"])
    assert kf.main() == 0
    out = capsys.readouterr().out
    assert "Nehalem: OpenBLAS kernel in use: openblas Nehalem" in out
    assert "| ok 3p 0f 1s 2s" in out


def test_counts_read_a_junit_report(tmp_path):
    report = tmp_path / "r.xml"
    report.write_text('<testsuites><testsuite tests="10" failures="1" errors="1" skipped="2"/></testsuites>')
    assert kf.counts(report) == {"passed": 6, "failed": 2, "skipped": 2}
    assert kf.counts(tmp_path / "missing.xml") == {"passed": 0, "failed": 0, "skipped": 0}


def test_the_second_family_is_the_newest_whose_kernels_differ_from_the_default(monkeypatch):
    """What make release-check runs strict nbval under besides the default kernel."""
    maps = {"Zen": "Haswell"}  # OpenBLAS runs Haswell's kernels for Zen

    def probe_on(default):
        return lambda env: {"kernel": f"openblas {maps.get(env.get('OPENBLAS_CORETYPE'), env.get('OPENBLAS_CORETYPE', default))}"}

    monkeypatch.setattr(kf, "cpu_flags", lambda: set().union(*kf.FAMILIES.values()))
    monkeypatch.setattr(kf, "probe", probe_on("SkylakeX"))
    assert kf.second_family({"OPENBLAS_CORETYPE": "Nehalem"}) == "Haswell"  # the shell's own choice is left out
    monkeypatch.setattr(kf, "cpu_flags", lambda: set().union(*(v for k, v in kf.FAMILIES.items() if k != "SkylakeX")))
    monkeypatch.setattr(kf, "probe", probe_on("Haswell"))
    assert kf.second_family({}) == "Sandybridge"
    monkeypatch.setattr(kf, "cpu_flags", lambda: set())  # another architecture: no x86 family runs
    assert kf.second_family({}) == kf.LIMITED
