"""thinkpack's parse(): a finished response split into reasoning and answer.

`parse(text, model_info=ModelInfo(...))` needs no tokenizer when the ModelInfo is
given, as thinkpack's README says. `prefixed` is whether the chat template opened
the block in the prompt: the context's `starts_in_reasoning`. A caller's pair
<N> </N> is `ModelInfo.with_tag("<N>")`, which replaces the default `think`; the
manifest lets only one such pair through.

thinkpack's package `__init__` imports `thinkpack.mask`, which imports `Dataset`
from Hugging Face `datasets` for its loss-masking helper only; `datasets` (with
pyarrow and pandas) is not installed, and an empty module offering a placeholder
`Dataset` stands in for it. parse() never touches it.
"""

import os
import sys
import types

sys.path.insert(0, os.environ["SCRUBCHECK_PEERLOOP_DIR"])
from peerloop import serve  # noqa: E402,I001


class _Dataset:
    """Stands for datasets.Dataset, which only thinkpack.mask uses."""


_datasets = types.ModuleType("datasets")
_datasets.Dataset = _Dataset
sys.modules.setdefault("datasets", _datasets)

from thinkpack import ModelInfo, parse  # noqa: E402


def splitter(context: dict):
    info = ModelInfo(prefixed=bool(context.get("starts_in_reasoning")))
    delimiters = context.get("delimiters") or ()
    if delimiters:
        (pair,) = delimiters  # the manifest refuses more than one, and markers
        info = info.with_tag(pair["open"])

    def split(text: str) -> tuple[str, str]:
        parsed = parse(text, model_info=info)
        return parsed.reasoning, parsed.answer
    return split


serve(splitter, kind="batch-splitter", package="thinkpack")
