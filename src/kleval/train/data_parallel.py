"""Several GPUs of one node under torchrun: data-parallel RL (UNTESTED ON GPU).

    torchrun --nproc-per-node 8 -m kleval.cli train --model BASE --task TASK --preset k3-loss \
        --device cuda --bf16 --rollout hf --out RUN_DIR

Each rank samples prompts_per_step / world_size prompts with its own seed, computes its loss, and
the gradients are averaged across ranks before clipping (what DistributedDataParallel does, done
by hand so the loop stays one readable story and the two backward passes of the split gradient
norms keep working). Every rank holds the full model and Adam state: this fits models up to a
few billion parameters; `--fsdp` shards them instead (train/sharding.py) and uses the process
group set up here. Rank 0 alone logs and saves; logged statistics are averaged across ranks;
each rank's RNG states are gathered into the checkpoint so a resume continues every rank's streams.
"""
from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Ranks:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def setup(device: str, *, sharded: bool = False) -> tuple[Ranks, str]:
    """Join the torchrun process group if launched by torchrun; returns (ranks, this rank's device).

    sharded (FSDP) needs the process group even for one rank, hence torchrun.
    """
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if sharded and "LOCAL_RANK" not in os.environ:
        from kleval.errors import ConfigError

        raise ConfigError("--fsdp needs a process group: launch with torchrun --nproc-per-node N "
                          "(-m kleval.cli train ...), or drop --fsdp")
    if world_size == 1 and not sharded:
        return Ranks(), device
    import torch
    import torch.distributed as dist

    local_rank = int(os.environ["LOCAL_RANK"])
    if device.startswith("cuda"):
        torch.cuda.set_device(local_rank)
        device = f"cuda:{local_rank}"
    if not dist.is_initialized():
        dist.init_process_group("nccl" if device.startswith("cuda") else "gloo")
    return Ranks(rank=dist.get_rank(), world_size=world_size, local_rank=local_rank), device


def average_gradients(model, ranks: Ranks) -> None:
    """Average .grad across ranks (one flat all-reduce)."""
    average_tensors([p.grad for p in model.parameters() if p.grad is not None], ranks)


def average_tensors(grads: list, ranks: Ranks) -> None:
    """Average tensors across ranks in place (one flat all-reduce; every rank passes the same shapes)."""
    if ranks.world_size == 1 or not grads:
        return
    import torch
    import torch.distributed as dist

    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat)
    flat /= ranks.world_size
    offset = 0
    for g in grads:
        g.copy_(flat[offset: offset + g.numel()].view_as(g))
        offset += g.numel()


def average_row(row: dict, ranks: Ranks, device: str) -> dict:
    """Average the numeric entries of a log row across ranks (others are kept from this rank)."""
    if ranks.world_size == 1:
        return row
    import torch
    import torch.distributed as dist

    keys = [k for k, v in row.items() if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "step"]
    values = torch.tensor([float(row[k]) for k in keys], dtype=torch.float64, device=device)
    dist.all_reduce(values)
    values /= ranks.world_size
    return {**row, **{k: float(v) for k, v in zip(keys, values.tolist())}}


def gather_object(obj, ranks: Ranks) -> list | None:
    """[obj of rank 0, obj of rank 1, ...] on rank 0, None on the others (a collective)."""
    if ranks.world_size == 1:
        return [obj]
    import torch.distributed as dist

    gathered = [None] * ranks.world_size
    dist.all_gather_object(gathered, obj)
    return gathered if ranks.is_main else None


def scatter_object(objects: list | None, ranks: Ranks):
    """This rank's entry of rank 0's list (None when rank 0 has none for this many ranks)."""
    if ranks.world_size > 1:
        import torch.distributed as dist

        holder = [objects if ranks.is_main else None]
        dist.broadcast_object_list(holder, src=0)
        objects = holder[0]
    if objects is None or len(objects) != ranks.world_size:
        return None
    return objects[ranks.rank]


def barrier(ranks: Ranks) -> None:
    if ranks.world_size > 1:
        import torch.distributed as dist

        dist.barrier()
