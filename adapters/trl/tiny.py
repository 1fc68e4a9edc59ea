"""A tiny model and tokenizer built in-process, so that CPU smoke runs and tests never touch a hub.

The tokenizer is a byte-level BPE (any text, JSON tool calls included, round-trips exactly) trained on the
run's own prompts, with TRL's shipped Qwen2.5 chat template: TRL recognises it, attaches the tool-call response
parser, and it is prefix-preserving, as TRL's tool loop requires. The model is a randomly initialised Qwen2
of a few tens of thousands of parameters.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<pad>")


def tiny_tokenizer(corpus: Iterable[str], vocab_size: int = 1024):
    """A byte-level BPE tokenizer trained on ``corpus``, with the Qwen2.5 chat template and tool parser."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import add_response_schema

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(SPECIAL_TOKENS),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    bpe.train_from_iterator(list(corpus), trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<pad>",
                                        bos_token=None, padding_side="left")
    tokenizer.chat_template = (resources.files("trl") / "chat_templates" / "qwen2_5.jinja").read_text()
    return add_response_schema(tokenizer)


def tiny_model(tokenizer, max_positions: int = 8192, seed: int = 0):
    """A random Qwen2 causal LM sized for ``tokenizer``; ``max_positions`` must exceed prompt + completion."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=max_positions,
                         tie_word_embeddings=True, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, bos_token_id=None)
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model
