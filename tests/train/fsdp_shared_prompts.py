"""Test helper (2 gloo ranks): rank 0's prompts are padded, rank 1's are not. Under FSDP every
forward is a collective, so both ranks must take the same forward path (shared prompt or not) in
scoring and in the update; a per-rank choice gives mismatched collectives (an error or a hang).

Usage: python -m torch.distributed.run --nproc-per-node 2 tests/train/fsdp_shared_prompts.py BASE_DIR
"""
import sys

import torch
import torch.distributed as dist
from transformers import AutoModelForCausalLM, AutoTokenizer

from kleval.train.data_parallel import Ranks
from kleval.train.rollout import encode_prompts, finish_batch
from kleval.train.scoring import Scorer, ScoringSettings, agree_on_sharing, micro_batches, score_batch, \
    shared_prompt_group
from kleval.train.sharding import shard_models

if __name__ == "__main__":
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ranks = Ranks(rank=rank, world_size=2)
    tokenizer = AutoTokenizer.from_pretrained(sys.argv[1])
    policy = AutoModelForCausalLM.from_pretrained(sys.argv[1])
    reference = AutoModelForCausalLM.from_pretrained(sys.argv[1]).eval()
    policy, reference = shard_models(policy, reference, dtype="float32")
    prompts = ["12+34=", "5+5="] if rank == 0 else ["12+34=", "56+78="]  # rank 0 pads "5+5="
    prompt_ids, prompt_mask = encode_prompts(tokenizer, prompts, 2)
    digits = [tokenizer.convert_tokens_to_ids(c) for c in "4613"]
    response_ids = torch.tensor([digits] * 4)
    batch = finish_batch(tokenizer, prompt_ids, prompt_mask, response_ids, tokenizer.eos_token_id, 2)
    settings = ScoringSettings(micro_batch=4)
    policy_scorer, reference_scorer = Scorer(policy, settings, sharded=True), Scorer(reference, settings, sharded=True)
    own = [shared_prompt_group(rows) for _, rows in micro_batches(batch, 4)]
    scores = score_batch(policy_scorer, reference_scorer, batch, ranks)
    groups = agree_on_sharing(own, ranks)
    for (index, rows), group in zip(micro_batches(batch, 4), groups):
        logprobs = policy_scorer.token_logprobs(policy_scorer.states(rows, group), rows.response_ids)
        (logprobs * rows.response_mask).sum().backward()
    assert torch.isfinite(scores.reverse_kl).all()
    print(f"rank {rank}: own choice {own}, agreed {groups}, ok", flush=True)
    dist.destroy_process_group()
