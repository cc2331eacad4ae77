"""`kleval gradcheck` reproduces the theory of where each KL configuration's gradient points."""
import json

from kleval.cli import main
from kleval.train.gradcheck import THEORY, run_gradcheck


def test_every_theory_claim_holds_by_enumeration():
    result = run_gradcheck(vocab=3, lengths=(1, 2, 3), mc_samples=200)
    claims = {c["claim"] for c in result["checks"]}
    assert {claim for *_, claim in THEORY} <= claims
    failed = [c for c in result["checks"] if not c["passed"]]
    assert not failed, failed
    rows = {(r["config"], r["length"]): r for r in result["rows"]}
    assert rows[("k1-reward", 3)]["cosine_vs_rev"] > 0.999999
    assert rows[("k1-loss", 2)]["norm_ratio"] < 1e-9
    assert rows[("k3-reward", 2)]["rel_error_vs_rev"] > 0.1  # biased
    assert all(r["mc_rel_std"] > 0 for r in result["rows"])


def test_cli_json_and_plot(tmp_path, capsys):
    plot = tmp_path / "bias.png"
    code = main(["gradcheck", "--json", "--max-length", "2", "--mc-samples", "50", "--plot", str(plot)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["all_passed"] and plot.stat().st_size > 1000
    assert {r["config"] for r in out["rows"]} >= {"k1-reward", "k1-loss", "k2-loss", "k3-loss", "k3-reward"}


def test_a_sign_flip_in_the_advantages_or_the_loss_fails_the_check(monkeypatch):
    """The check runs the trainer's compute_advantages and compute_loss: a bug planted there must show."""
    import kleval.train.advantage as advantage
    import kleval.train.loss as loss

    assert run_gradcheck(vocab=2, lengths=(1, 2), mc_samples=20)["all_passed"]
    real_advantages = advantage.compute_advantages

    def flipped_advantages(*args, **kwargs):
        advantages, shaped = real_advantages(*args, **kwargs)
        return -advantages, shaped

    monkeypatch.setattr(advantage, "compute_advantages", flipped_advantages)
    failed = {c["config"] for c in run_gradcheck(vocab=2, lengths=(1, 2), mc_samples=20)["checks"] if not c["passed"]}
    assert {"k1-reward", "k3-reward", "k1-both", "k3-both"} <= failed
    monkeypatch.setattr(advantage, "compute_advantages", real_advantages)
    real_aggregate = loss.aggregate
    monkeypatch.setattr(loss, "aggregate", lambda *args, **kwargs: -real_aggregate(*args, **kwargs))
    failed = {c["config"] for c in run_gradcheck(vocab=2, lengths=(1, 2), mc_samples=20)["checks"] if not c["passed"]}
    assert {"k3-loss", "k2-loss", "k1-reward"} <= failed


def test_both_placement_is_biased_with_grpo_or_a_per_response_token_mean():
    result = run_gradcheck(vocab=3, lengths=(1, 2, 3), mc_samples=20)
    rows = {(r["config"], r["length"]): r for r in result["rows"]}
    assert rows[("k3-both", 3)]["rel_error_vs_rev"] < 1e-9
    assert rows[("k3-both-grpo", 3)]["rel_error_vs_rev"] > 0.05
    assert rows[("k3-both-token-mean", 3)]["rel_error_vs_rev"] > 0.05
