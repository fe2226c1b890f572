"""helpers.circuit.trainer: seeded, bit-reproducible Adam training with recorded scores (11_learning_a_circuit)."""
import subprocess
import sys

import numpy as np
import pytest
from paths import ROOT

from helpers import circuit
from helpers.circuit import scores, sweep, trainer
from tools.data import pinned


def _same_run(a, b):
    assert a.eval_steps == b.eval_steps and a.train_repeat == b.train_repeat and a.train_other == b.train_other
    for x, y in zip(a.evals, b.evals):
        for name in ("previous", "induction", "duplicate"):
            np.testing.assert_array_equal(getattr(x, name), getattr(y, name))
        assert (x.repeat_loss, x.other_loss) == (y.repeat_loss, y.other_loss)
    assert a.checkpoints.keys() == b.checkpoints.keys()
    for step in a.checkpoints:
        for name, value in a.checkpoints[step].params.items():
            assert np.array_equal(value, b.checkpoints[step].params[name]), (step, name)


def test_a_run_twice_gives_identical_arrays():
    a = trainer.train(steps=30, eval_every=10, checkpoints=(0, 20, 30))
    b = trainer.train(steps=30, eval_every=10, checkpoints=(0, 20, 30))
    _same_run(a, b)
    assert a.steps == 30 and a.eval_steps == [0, 10, 20, 30]
    c = trainer.train(steps=30, eval_every=10, seed=1, checkpoints=(30,))
    assert not np.array_equal(c.checkpoints[30].params["W_E"], a.checkpoints[30].params["W_E"])


def test_checkpoints_are_copies_and_the_evaluation_is_their_scores():
    run = trainer.train(steps=20, eval_every=10, checkpoints=(0, 20))
    assert not np.array_equal(run.checkpoints[0].params["W_Q"], run.checkpoints[20].params["W_Q"])
    again = scores.head_scores(run.checkpoints[20], trainer.eval_batch())
    np.testing.assert_allclose(again.induction, run.at(20).induction, rtol=1e-12)
    assert again.repeat_loss == pytest.approx(run.at(20).repeat_loss, rel=1e-12)
    assert run.at(0).repeat_loss == pytest.approx(np.log(32), abs=0.5)


@pytest.mark.slow  # a fresh interpreter retrains 100 steps in the pinned environment
@pytest.mark.skipif(pinned.unpinnable() is not None, reason=str(pinned.unpinnable()))
def test_the_stored_prefix_is_retrained_bit_for_bit(tmp_path):
    """helpers/data/circuit_sweep.npz holds two_layers seed 0 at step 100: the generator, re-run in its
    pinned environment (python -m tools.data.circuit_data --prefix, a subprocess), makes the same bits —
    whatever this process's CPU features, BLAS kernels or environment."""
    out = tmp_path / "prefix.npz"
    subprocess.run([sys.executable, "-m", "tools.data.circuit_data", "--prefix", str(out)],
                   check=True, cwd=ROOT, timeout=600)
    stored = sweep.prefix_checkpoint()
    with np.load(out) as fresh:
        for name, value in stored.params.items():
            assert value.dtype == fresh[f"param/{name}"].dtype == np.float64
            assert np.array_equal(fresh[f"param/{name}"], value), name
        first = sweep.table("two_layers")[0]
        assert first.seed == 0
        for step in (0, sweep.PREFIX_STEP):
            assert first.value_at("repeat_loss", step) == float(fresh[f"repeat_loss/{step}"])
            assert first.value_at("induction", step) == fresh[f"induction/{step}"][1].max()


def test_the_pinned_environment_names_every_dispatched_feature():
    env = pinned.pinned_env()
    assert env["OPENBLAS_NUM_THREADS"] == "1" and env["OPENBLAS_CORETYPE"] == pinned.BLAS_CORE
    assert set(env["NPY_DISABLE_CPU_FEATURES"].split()) == set(pinned._dispatched_features())
    assert "-FMA" in env["GLIBC_TUNABLES"].split("=", 1)[1].split(",")
    assert pinned.is_pinned(env) and not pinned.is_pinned({**env, "OPENBLAS_CORETYPE": "Haswell"})
    with pytest.raises(TypeError, match="environ must be a mapping"):
        pinned.is_pinned(["OPENBLAS_NUM_THREADS=1"])


def _fake_run(losses, every=25):
    run = trainer.TrainingRun(circuit.CONFIG, circuit.TASK, 3e-3, 0, 64)
    zero = np.zeros((2, 2))
    for i, loss in enumerate(losses):
        run.eval_steps.append(i * every)
        run.evals.append(scores.HeadScores(zero, zero, zero, float(loss), 3.0))
    run.train_repeat.extend([0.0] * (every * (len(losses) - 1)))
    return run


def test_drop_is_the_window_of_the_steepest_fall():
    losses = [3.4] * 12 + [3.0, 2.0, 1.0, 0.8, 0.7] + [0.6] * 10
    run = _fake_run(losses)
    start, end = run.drop(100)
    assert (start, end) == (11 * 25, 15 * 25)
    assert run.drop(50) == (12 * 25, 14 * 25)
    with pytest.raises(ValueError, match="multiple of the evaluation interval"):
        run.drop(30)


def test_steepest_drop_on_plain_arrays():
    steps = np.arange(0, 300, 25)
    loss = np.array([3.0, 3.0, 2.9, 2.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8])
    assert trainer.steepest_drop(steps, loss, 50) == (50, 100)
    assert trainer.steepest_drop(steps, loss, 25) == (75, 100)         # 2.0 → 1.0, the largest single fall
    assert trainer.steepest_drop(steps, loss, 100) == (25, 125)        # 2.1 from 25 and from 50: the earliest
    assert trainer.steepest_drop(steps, [1.0] * 12, 50) == (0, 50)
    with pytest.raises(ValueError, match="window must be a multiple"):
        trainer.steepest_drop(steps, loss, 400)
    with pytest.raises(ValueError, match="loss must"):
        trainer.steepest_drop(steps, loss[:-1], 50)
    with pytest.raises(TypeError, match="steps must be"):
        trainer.steepest_drop(steps[::-1], loss, 50)
    with pytest.raises(ValueError, match="window must be"):
        trainer.steepest_drop(steps, loss, 0)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="agree on vocab and length"):
        trainer.train(circuit.CONFIG, circuit.Task(vocab=64), steps=1)
    with pytest.raises(ValueError, match="steps must be"):
        trainer.train(steps=0)
    with pytest.raises(ValueError, match="lr must be"):
        trainer.train(steps=1, lr=-1.0)
    with pytest.raises(ValueError, match="checkpoints must be <= 5"):
        trainer.train(steps=5, checkpoints=(6,))
    with pytest.raises(TypeError, match="config and task"):
        trainer.train("two layers")
    with pytest.raises(ValueError, match="name must be"):
        trainer.train(steps=1).curve("accuracy")
