"""FSDP2 sharding for the training loop (`--fsdp`): what changes when parameters are sharded.

Under `sharding="fsdp"` each rank holds 1/world_size of the policy's parameters, gradients and
Adam state (torch.distributed.fsdp.fully_shard, one group per decoder layer, then the root).
Every helper here also accepts an unsharded model, so the loop calls them unconditionally:

- `shard_models`: policy with fp32 master weights and, with `dtype="bfloat16"`, mixed precision
  (bf16 compute, fp32 gradient reduction); the reference is sharded too, in its own dtype, no
  mixed precision (it is never trained). Sharding it keeps an 8B reference at 1/N of 16 GB per
  GPU; the price is one all-gather per layer per reference forward, once per step.
- `reduce_gradients`: data parallel all-reduces by hand; FSDP already reduce-scattered (mean
  over ranks) during backward, so it is a no-op there.
- `gradient_norm`, `clip_gradients`: norms over sharded (DTensor) gradients are global norms.
- `gathered_for_sampling`: sampling loops stop when every sequence of *this rank* has ended, so
  ranks run different numbers of forwards; under FSDP each forward is a collective and ranks
  would deadlock. The whole policy is gathered once, sampled from without collectives, resharded.
- `full_state_dict`, `optimizer_state_dict`, `load_optimizer_state_dict`: full (unsharded)
  weights and Adam state on rank 0's CPU for `global_step_N/` and resume (collectives: every rank
  calls them); `full_parameters`: full tensors one at a time on every rank, for the vLLM push.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator


def is_sharded(model) -> bool:
    from torch.distributed.fsdp import FSDPModule

    return isinstance(model, FSDPModule)


def _decoder_layers(model):
    """The repeated blocks to shard one by one (Llama/Qwen/Mistral: model.model.layers)."""
    layers = getattr(getattr(model, "model", None), "layers", None)
    if layers is None:
        from kleval.errors import ConfigError

        raise ConfigError(f"--fsdp: cannot find the decoder layers of {type(model).__name__} (expected model.model.layers)")
    return list(layers)


def shard_models(policy, reference, *, dtype: str):
    """fully_shard both models in place (per decoder layer, then the root); returns them."""
    import torch
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    # The policy stays fp32 (master weights, fp32 Adam); bf16 is only the compute dtype.
    mixed = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32) \
        if dtype == "bfloat16" else MixedPrecisionPolicy()
    for model, policy_kwargs in ((policy, {"mp_policy": mixed}), (reference, {})):
        for layer in _decoder_layers(model):
            fully_shard(layer, **policy_kwargs)
        fully_shard(model, **policy_kwargs)
    return policy, reference


def reduce_gradients(model, ranks) -> None:
    """Average .grad over ranks: by hand for data parallel; FSDP did it in backward."""
    if is_sharded(model):
        return
    from kleval.train.data_parallel import average_gradients

    average_gradients(model, ranks)


def reduce_gradient_list(model, grads: list, ranks) -> list:
    """Average a list of gradients (aligned with model.parameters()) over ranks; FSDP's are already."""
    if is_sharded(model):
        return grads
    from kleval.train.data_parallel import average_tensors

    average_tensors([g for g in grads if g is not None], ranks)
    return grads


def gradient_norm(grads) -> float:
    """Global L2 norm of a list of gradients (DTensor shards included)."""
    import torch
    from torch.distributed.tensor import DTensor

    grads = [g for g in grads if g is not None]
    if not grads:
        return 0.0
    norm = torch.nn.utils.get_total_norm(grads)
    return float(norm.full_tensor() if isinstance(norm, DTensor) else norm)


def clip_gradients(model, max_norm: float) -> float:
    """clip_grad_norm_ (global over shards); returns the pre-clip norm."""
    import torch
    from torch.distributed.tensor import DTensor

    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    return float(norm.full_tensor() if isinstance(norm, DTensor) else norm)


@contextmanager
def gathered_for_sampling(model) -> Iterator[None]:
    """Hold the full policy on every rank for a sampling loop (no collective per forward)."""
    if not is_sharded(model):
        yield
        return
    from torch.distributed.fsdp import FSDPModule

    groups = [m for m in model.modules() if isinstance(m, FSDPModule)]
    model.set_reshard_after_forward(False)
    for group in groups:  # the same order on every rank: these all-gathers are collectives
        group.unshard()
    try:
        yield
    finally:
        for group in groups:
            group.reshard()
        model.set_reshard_after_forward(True)


def full_state_dict(model, ranks) -> dict | None:
    """Sharded: full weights on rank 0's CPU, None elsewhere (a collective: every rank calls it).

    Unsharded: None, i.e. save_pretrained writes the model's own state dict.
    """
    if not is_sharded(model):
        return None
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

    state = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    if not ranks.is_main:
        return None
    # Tied weights (lm_head = embed_tokens) come back as two copies; keep the first name, as HF saves.
    seen, tied = set(), []
    for name, parameter in model.named_parameters(remove_duplicate=False):
        if id(parameter) in seen:
            tied.append(name)
        seen.add(id(parameter))
    return {name: tensor for name, tensor in state.items() if name not in tied}


def optimizer_state_dict(model, optimizer, ranks) -> dict | None:
    """Adam state for resume: as is unsharded; gathered to rank 0's CPU (keyed by name) when sharded."""
    if not is_sharded(model):
        return optimizer.state_dict() if ranks.is_main else None
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict

    state = get_optimizer_state_dict(model, optimizer,
                                     options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    return state if ranks.is_main else None


def load_optimizer_state_dict(model, optimizer, state: dict | None, ranks) -> None:
    """Restore what optimizer_state_dict saved; sharded: rank 0's copy is broadcast and sharded."""
    if not is_sharded(model):
        optimizer.load_state_dict(state)
        return
    from torch.distributed.checkpoint.state_dict import StateDictOptions, set_optimizer_state_dict

    set_optimizer_state_dict(model, optimizer, optim_state_dict=state if ranks.is_main else {},
                             options=StateDictOptions(full_state_dict=True, broadcast_from_rank0=True))


def full_parameters(model, dtype=None) -> Iterator[tuple[str, object]]:
    """(name, full tensor) one at a time on every rank (for a weight push; sharded: collectives)."""
    from torch.distributed.tensor import DTensor

    for name, tensor in model.state_dict().items():
        full = tensor.full_tensor() if isinstance(tensor, DTensor) else tensor
        yield name, full.detach().to(dtype) if dtype is not None else full.detach()
