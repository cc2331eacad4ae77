"""Micro-batches and chunks change the memory, never the gradient: one update with 1, 2 or all rows
per forward (and small logit chunks) gives the loss and gradients of one unchunked whole-batch
forward, on the tiny model and on a random Llama with SmolLM2's 49,152-token vocabulary; and no
tensor the size of [batch, length, vocab] is ever created."""
from types import SimpleNamespace

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from kleval.train.data_parallel import Ranks
from kleval.train.loop import update_policy
from kleval.train.loss import compute_loss
from kleval.train.rollout import RolloutBatch
from kleval.train.scoring import Scorer, ScoringSettings, score_batch
from kleval.train.tiny import COMMITTED_BASE, tiny_config


def _random_llama(vocab: int, seed: int = 0):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         tie_word_embeddings=True)
    return LlamaForCausalLM(config).float()


def _batch(vocab: int, *, prompts=3, samples=2, prompt_len=5, length=12, seed=0) -> RolloutBatch:
    """Random responses with left-padded prompts of different lengths and ends of sequence (id 0)."""
    g = torch.Generator().manual_seed(seed)
    rows = prompts * samples
    prompt_ids = torch.randint(1, vocab, (prompts, prompt_len), generator=g).repeat_interleave(samples, 0)
    prompt_mask = torch.ones(rows, prompt_len, dtype=torch.long)
    for row in range(rows):
        pad = (row // samples) % 3  # prompt p has p % 3 pads
        prompt_ids[row, :pad], prompt_mask[row, :pad] = 0, 0
    response_ids = torch.randint(1, vocab, (rows, length), generator=g)
    lengths = torch.randint(2, length + 1, (rows,), generator=g)
    response_mask = (torch.arange(length) < lengths.unsqueeze(-1)).long()
    response_ids = torch.where(response_mask.bool(), response_ids, 0)
    return RolloutBatch(prompt_ids, prompt_mask, response_ids, response_mask, [""] * rows,
                        torch.zeros(rows, dtype=torch.bool), [r // samples for r in range(rows)])


def _unchunked_reference(model, reference, batch, config, advantages):
    """The whole batch in one forward, full [B, T, V] log-softmax: what the loop did before."""
    prompt_len, length = batch.prompt_ids.shape[1], batch.response_ids.shape[1]
    attention = torch.cat([batch.prompt_mask, torch.ones_like(batch.response_ids)], -1)
    positions = (attention.cumsum(-1) - 1).clamp(min=0)
    ids = torch.cat([batch.prompt_ids, batch.response_ids], -1)

    def logprobs(m):
        logits = m(input_ids=ids, attention_mask=attention, position_ids=positions).logits
        full = torch.log_softmax(logits[:, prompt_len - 1: prompt_len - 1 + length].float(), -1)
        return full.gather(-1, batch.response_ids.unsqueeze(-1)).squeeze(-1)

    with torch.no_grad():
        ref = logprobs(reference)
    model.zero_grad(set_to_none=True)
    lp = logprobs(model)
    terms = compute_loss(lp, lp.detach(), ref, advantages, batch.response_mask.float(), kl=config.kl,
                         aggregation=config.loss_aggregation, clip_epsilon=0.2, max_length=config.max_new_tokens)
    terms.total.backward()
    return float(terms.total.detach()), [p.grad.clone() for p in model.parameters()]


def _update(model, reference, batch, config, advantages, micro_batch, chunk_mb):
    settings = ScoringSettings(micro_batch, chunk_mb=chunk_mb)
    run = SimpleNamespace(config=config.with_overrides(micro_batch_size=micro_batch), policy=model,
                          policy_scorer=Scorer(model, settings), ranks=Ranks(),
                          optimizer=torch.optim.SGD(model.parameters(), lr=0.0))
    scores = score_batch(run.policy_scorer, Scorer(reference, settings), batch, Ranks())
    row = update_policy(run, batch, scores, advantages, None, step=1)
    return row, [p.grad.clone() for p in model.parameters()], scores


CASES = [("k3-both", "token-mean", 1), ("k1-reward", "seq-mean-token-mean", 0), ("k2-loss", "seq-sum-norm", 1)]


@pytest.mark.parametrize("vocab", [17, 49152])
@pytest.mark.parametrize("preset_name, aggregation, split_every", CASES)
def test_micro_batches_and_chunks_give_the_unchunked_gradient(vocab, preset_name, aggregation, split_every):
    model, reference = _random_llama(vocab, seed=0), _random_llama(vocab, seed=1)
    batch = _batch(vocab)
    rows = batch.response_ids.shape[0]
    config = tiny_config(preset_name, base_dir=COMMITTED_BASE, beta=0.3, loss_aggregation=aggregation,
                         max_new_tokens=12, samples_per_prompt=2, max_grad_norm=1e9, grad_norm_split_every=split_every)
    advantages = torch.randn(rows, 1, generator=torch.Generator().manual_seed(3)).expand(rows, 12) * batch.response_mask
    loss, grads = _unchunked_reference(model, reference, batch, config, advantages)
    chunk_mb = 1 if vocab > 1000 else 256  # 1 MB: about 5 positions of 49,152 fp32 logits per chunk
    for micro_batch in (1, 2, rows):
        row, chunked, _ = _update(model, reference, batch, config, advantages, micro_batch, chunk_mb)
        assert row["loss"] == pytest.approx(loss, rel=1e-5, abs=1e-6), micro_batch
        for a, b in zip(grads, chunked):
            assert torch.allclose(a, b, rtol=1e-4, atol=1e-6), (micro_batch, float((a - b).abs().max()))
        if split_every:
            assert row["grad_norm_kl"] > 0 and row["grad_norm_pg"] > 0


class LargestTensor(TorchDispatchMode):
    """Records the largest tensor any operator returns (forward and backward)."""

    def __init__(self):
        super().__init__()
        self.numel = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for value in tree_flatten(out)[0]:
            if isinstance(value, torch.Tensor):
                self.numel = max(self.numel, value.numel())
        return out


def test_no_tensor_of_batch_by_length_by_vocab_is_ever_built():
    vocab = 49152
    model, reference = _random_llama(vocab, seed=0), _random_llama(vocab, seed=1)
    batch = _batch(vocab, prompts=4, samples=2, length=24)
    rows, length = batch.response_ids.shape
    config = tiny_config("k3-both", base_dir=COMMITTED_BASE, max_new_tokens=length, samples_per_prompt=2,
                         grad_norm_split_every=1)
    advantages = torch.ones(rows, length) * batch.response_mask
    whole = rows * length * vocab
    largest = {}
    for micro_batch, chunk_mb in ((1, 1), (rows, 4096)):
        with LargestTensor() as probe:
            _update(model, reference, batch, config, advantages, micro_batch, chunk_mb)
        largest[micro_batch] = probe.numel
    assert largest[rows] >= whole  # the probe sees [B, T, V] when one forward takes the whole batch
    assert largest[1] < whole // 4  # micro-batch 1, small chunks: nothing near it (the largest is a weight)
    assert largest[1] <= max(p.numel() for p in model.parameters()) * 2
