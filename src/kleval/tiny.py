"""Tiny real checkpoints for tests, demos and the CPU training mode (no hub downloads).

A tokenizer trained here with the `tokenizers` library (byte-level BPE for arbitrary text, or a
character vocabulary for synthetic tasks) and a transformers Llama of roughly 0.1-3M parameters,
saved with `save_pretrained`, so every code path that loads a Hugging Face checkpoint can be
exercised for real.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

SPECIAL_TOKENS = ("<|endoftext|>", "<|pad|>", "<|user|>", "<|assistant|>")
EOS, PAD = SPECIAL_TOKENS[0], SPECIAL_TOKENS[1]

# A minimal chat template: enough for backends to exercise the chat path of a real tokenizer.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'user' %}<|user|>{{ message['content'] }}"
    "{% else %}<|assistant|>{{ message['content'] }}<|endoftext|>{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)

_DEFAULT_CORPUS = (
    "Please reason step by step, and put your final answer within \\boxed{}.",
    "The answer is 42. #### 18 The final answer is $\\frac{1}{2}$.",
    "Question: Which of the following is correct? A) one B) two C) three D) four Answer: B",
    "0123456789 + - * / = ( ) [ ] { } ^ _ \\sqrt \\pi x y z a b c n",
    "Let $x$ be a real number such that $x^2 + 3x - 4 = 0$. Find the sum of all values of $x$.",
)


def make_tokenizer(
    corpus: Iterable[str] | None = None,
    *,
    vocab_size: int = 384,
    alphabet: Sequence[str] | None = None,
):
    """Return a transformers PreTrainedTokenizerFast trained from scratch.

    With `alphabet`, a character-level vocabulary (one token per character, e.g. digits and
    operators for synthetic arithmetic); otherwise byte-level BPE trained on `corpus`, which
    can encode any text.
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    if alphabet is not None:
        chars = list(dict.fromkeys(alphabet))
        vocab = {tok: i for i, tok in enumerate(list(SPECIAL_TOKENS) + chars)}
        tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token=PAD))
        tok.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
        tok.decoder = decoders.Fuse()
    else:
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            special_tokens=list(SPECIAL_TOKENS),
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        tok.train_from_iterator(list(corpus or _DEFAULT_CORPUS), trainer=trainer)
    hf = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token=EOS,
        pad_token=PAD,
        bos_token=None,
        unk_token=PAD if alphabet is not None else None,
        padding_side="left",
        extra_special_tokens=list(SPECIAL_TOKENS[2:]),  # chat markers are skipped when decoding
    )
    hf.chat_template = CHAT_TEMPLATE
    return hf


def make_model(
    tokenizer,
    *,
    hidden_size: int = 64,
    num_layers: int = 2,
    num_heads: int = 4,
    intermediate_size: int = 256,
    max_positions: int = 1024,
    seed: int = 0,
):
    """Return a randomly initialised transformers LlamaForCausalLM sized for the CPU."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        num_key_value_heads=num_heads,
        max_position_embeddings=max_positions,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def build_tiny_checkpoint(
    out_dir: str | Path,
    *,
    corpus: Iterable[str] | None = None,
    alphabet: Sequence[str] | None = None,
    seed: int = 0,
    save_tokenizer: bool = True,
    **model_kwargs,
) -> Path:
    """Build a tiny tokenizer + Llama and save both to `out_dir` in Hugging Face format."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = make_tokenizer(corpus, alphabet=alphabet)
    model = make_model(tokenizer, seed=seed, **model_kwargs)
    model.save_pretrained(out)
    if save_tokenizer:
        tokenizer.save_pretrained(out)
    return out
