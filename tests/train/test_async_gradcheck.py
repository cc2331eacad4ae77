"""The async recipe's exact off-policy gradients: theory checks pass, and the bias is real."""
from kleval.train.async_gradcheck import format_async_table, run_async_gradcheck


def test_async_gradcheck_claims_hold():
    result = run_async_gradcheck(lengths=(1, 2), distances=(0.0, 0.3, 1.0))
    failed = [c for c in result["checks"] if not c["passed"]]
    assert not failed, failed
    claims = {c["claim"] for c in result["checks"]}
    assert any("biased (token ratios)" in c for c in claims)  # the off-policy bias is asserted, not only measured
    assert any("K1 in the loss adds" in c for c in claims)
    rows = {(r["config"], r["length"], r["distance"]): r for r in result["rows"]}
    assert rows[("none", 2, 0.0)]["rel_error_vs_on_policy"] == 0.0
    assert rows[("none", 2, 0.3)]["rel_error_vs_on_policy"] > 1e-2  # stale rollouts change the expected gradient
    assert "theory checks" in format_async_table(result)


def test_cli(capsys):
    from kleval.cli import main

    assert main(["gradcheck", "--async", "--max-length", "2"]) == 0
    assert "off-policy at length >= 2 without KL: biased" in capsys.readouterr().out
