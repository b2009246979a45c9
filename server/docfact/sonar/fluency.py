"""SONAR's Fluency: how natural a summary reads, from its perplexity under a language model.

With a causal LM (GPT-2 small when a copy is on this machine, or any configured model
folder) the score is SONAR's: F = clip((ln 500 - ln ppl) / (ln 500 - ln 8), 0, 1) over the
whole summary, truncated at 1024 tokens. Nothing is ever downloaded.

Without one, an embedded default: a word trigram model (nltk.lm, interpolated Witten-Bell;
Kneser-Ney in nltk.lm rescans every context per word and is far too slow to score with)
trained once on the prose paragraphs of the docstrings of the running Python's standard
library, read statically with ``ast``, and cached in docfact's cache folder. Its perplexities
live on another scale than GPT-2's, so it has its own anchors, measured when it is trained
on a held-out tenth of those paragraphs:

* ``low``  = the 10th percentile of held-out stdlib paragraphs: as fluent as the best tenth
  of the standard library's own prose scores 1;
* ``high`` = the 10th percentile of the same paragraphs with their words shuffled: nine word
  salads in ten score 0.

It reads at most the first 1024 words, as the causal LM reads at most 1024 tokens.

Measured on CPython 3.11 (12k distinct paragraphs, 260k words, a 6000-word vocabulary,
219k bigrams and trigrams): low ~ 12, high ~ 502. A median held-out stdlib paragraph then
scores ~ 0.52, 93% of them score above 0, and a median word salad scores 0. Training takes ~10 s once (parsing
2.6 s, counting and anchoring 6.6 s); the cache file is ~1.1 MB of gzipped JSON counts
(no pickle) and loads in ~0.8 s.
"""

from __future__ import annotations

import ast
import functools
import gzip
import json
import logging
import math
import os
import random
import re
import sysconfig
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cache import default_cache_dir

log = logging.getLogger(__name__)

SONAR_LOW, SONAR_HIGH = 8.0, 500.0  # GPT-2 perplexities that map to 1 and to 0
MAX_TOKENS = 1024
MAX_CHARS = 64 * MAX_TOKENS  # no 1024 tokens span more; spares tokenizing a huge text
GPT2_IDS = ("openai-community/gpt2", "gpt2")

NGRAM_VERSION = 1  # bump when the corpus, tokens or model change: the cache is rebuilt
ORDER = 3
VOCAB_SIZE = 6000
HELD_OUT = 0.1
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+|[^\w\s]")
_SKIPPED_DIRS = {"test", "tests", "idlelib", "site-packages", "dist-packages", "__pycache__"}
_load_lock = threading.Lock()  # callers run in threads: load (or train) each model once


def normalised(ppl: float, low: float = SONAR_LOW, high: float = SONAR_HIGH) -> float:
    """clip((ln high - ln ppl) / (ln high - ln low), 0, 1)."""
    if math.isnan(ppl):
        return 0.0
    if ppl <= 0:
        return 1.0
    return min(1.0, max(0.0, (math.log(high) - math.log(ppl)) / (math.log(high) - math.log(low))))


def fluency(text: str, model: str | None = None) -> tuple[float | None, str]:
    """The fluency of ``text`` in [0, 1] (None when it cannot be measured) and how it was
    measured. ``model``: a local causal LM folder or a hub id already in the local cache."""
    if not isinstance(text, str):
        return None, "no text"
    text = _clean(text)
    if not text:
        return None, "empty text"
    failure = ""
    source = model or _cached_gpt2()
    if source:
        with _load_lock:
            lm = _causal_lm(source)
        if isinstance(lm, str):
            failure = f"{source} could not be loaded ({lm}); "
        else:
            return lm.score(text)
    try:
        with _load_lock:
            ngram = _ngram()
        return ngram.score(text, note=failure)
    except Exception as error:  # a broken corpus must not break a check
        log.warning("fluency n-gram model unavailable: %s", error)
        return None, f"{failure}no language model: {error}"


def _clean(text: str) -> str:
    # Lone surrogates cannot be encoded for any tokenizer; replace them. The line breaks
    # and indents of a wrapped docstring are layout, not language: one space each.
    text = text[:MAX_CHARS].encode("utf-8", "replace").decode("utf-8")
    return " ".join(text.split())


def _offline() -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


@functools.cache
def _cached_gpt2() -> str | None:
    """GPT-2's hub id when a copy is in the local Hugging Face cache, else None."""
    _offline()
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    for repo in GPT2_IDS:
        found = try_to_load_from_cache(repo, "config.json")
        if isinstance(found, str):
            return repo
    return None


# --- a causal LM through transformers -----------------------------------------------


@dataclass
class _CausalLm:
    name: str
    tokenizer: Any
    model: Any
    limit: int  # tokens per text

    def score(self, text: str) -> tuple[float | None, str]:
        import torch

        try:
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"][: self.limit]
            start = self.tokenizer.bos_token_id
            if start is None:
                start = self.tokenizer.eos_token_id
            if len(ids) < 2 and start is not None:
                ids = [start, *ids][: self.limit]  # a lone token is scored after the start token
            if len(ids) < 2:
                return None, f"{self.name}: too short to score"
            batch = torch.tensor([ids])
            with torch.inference_mode():
                loss = float(self.model(input_ids=batch, labels=batch).loss)
        except (RuntimeError, ValueError, IndexError, TypeError) as error:
            return None, f"{self.name}: scoring failed ({error})"
        ppl = math.exp(min(loss, 700.0))  # exp overflows past ~709
        return normalised(ppl), f"{self.name} perplexity {ppl:.1f} over {len(ids)} tokens"


@functools.cache
def _causal_lm(source: str) -> _CausalLm | str:
    """The model at ``source`` (loaded once per process), or why it cannot be had."""
    _offline()
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as error:
        return f"transformers is not installed: {error}"
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(source, local_files_only=True)
    except (OSError, ValueError, KeyError, RuntimeError) as error:
        log.warning("fluency model %s could not be loaded: %s", source, error)
        return " ".join(str(error).split())[:200]
    model.eval()
    positions = getattr(model.config, "n_positions", None) or getattr(
        model.config, "max_position_embeddings", None) or MAX_TOKENS
    name = Path(source).name if Path(source).exists() else source
    return _CausalLm(name, tokenizer, model, min(MAX_TOKENS, positions))


# --- the embedded default: a trigram model of stdlib docstrings ---------------------


def words(text: str) -> list[str]:
    """Lower-cased words, numbers and punctuation marks: the n-gram model's tokens."""
    return _WORD.findall(text.lower())


def _padded(tokens: list[str]) -> list[str]:
    return ["<s>"] * (ORDER - 1) + tokens + ["</s>"]


@dataclass
class NgramModel:
    lm: Any  # nltk.lm.WittenBellInterpolated
    low: float
    high: float

    def perplexity(self, tokens: list[str]) -> float:
        from nltk.util import ngrams

        return self.lm.perplexity(ngrams(_padded(tokens), ORDER))

    def score(self, text: str, note: str = "") -> tuple[float | None, str]:
        tokens = words(text)[:MAX_TOKENS]
        if not tokens:
            return None, f"{note}no words to score"
        ppl = self.perplexity(tokens)
        how = (f"{note}stdlib-docstring trigram perplexity {ppl:.1f} over {len(tokens)} words "
               f"(anchors {self.low:.1f}..{self.high:.1f})")
        return normalised(ppl, self.low, self.high), how


def stdlib_paragraphs() -> list[list[str]]:
    """Distinct prose paragraphs of the stdlib's docstrings, as tokens (parsed, not imported)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    seen: set[tuple[str, ...]] = set()
    for path in sorted(root.rglob("*.py")):
        if _SKIPPED_DIRS.intersection(path.relative_to(root).parts):
            continue
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                for paragraph in re.split(r"\n\s*\n", ast.get_docstring(node) or ""):
                    # Doctests, literal blocks and indented section entries are not prose.
                    lines = paragraph.splitlines()
                    if ">>>" in paragraph or any(line[:1].isspace() for line in lines):
                        continue
                    tokens = tuple(words(paragraph))
                    if len(tokens) >= 3:
                        seen.add(tokens)
    return [list(tokens) for tokens in sorted(seen)]


def train(paragraphs: list[list[str]], seed: int = 0) -> tuple[NgramModel, dict]:
    """A Witten-Bell trigram model, its anchors measured on a held-out tenth, and its counts."""
    from nltk.lm import Vocabulary, WittenBellInterpolated
    from nltk.util import everygrams

    shuffled = paragraphs[:]
    random.Random(seed).shuffle(shuffled)
    cut = max(1, int(len(shuffled) * HELD_OUT))
    held, rest = shuffled[:cut], shuffled[cut:]
    known = {w for w, _ in Counter(w for p in rest for w in p).most_common(VOCAB_SIZE)}
    padded = [_padded([w if w in known else "<UNK>" for w in p]) for p in rest]
    lm = WittenBellInterpolated(ORDER, vocabulary=Vocabulary(unk_cutoff=1))
    lm.fit((everygrams(p, max_len=ORDER) for p in padded), (w for p in padded for w in p))
    model = NgramModel(lm, 1.0, 2.0)
    rng = random.Random(seed + 1)
    real = sorted(model.perplexity(p) for p in held)
    salad = sorted(model.perplexity(rng.sample(p, len(p))) for p in held)
    model.low, model.high = real[len(real) // 10], salad[len(salad) // 10]
    return model, _counts_of(lm, model)


def _counts_of(lm, model: NgramModel) -> dict:
    counts = lm.counts
    return {
        "version": NGRAM_VERSION,
        "low": model.low,
        "high": model.high,
        "unigrams": dict(counts[1]),
        "ngrams": [[*ctx, w, c] for n in range(2, ORDER + 1)
                   for ctx, dist in counts[n].items() for w, c in dist.items()],
    }


def _from_counts(data: dict) -> NgramModel:
    from nltk.lm import NgramCounter, Vocabulary, WittenBellInterpolated

    if data.get("version") != NGRAM_VERSION:
        raise ValueError("stale n-gram cache")
    counter = NgramCounter()
    counter[1].update(data["unigrams"])
    for *ctx, word, count in data["ngrams"]:
        counter[len(ctx) + 1][tuple(ctx)][word] = count
    vocab = Vocabulary(counts=data["unigrams"], unk_cutoff=1)
    lm = WittenBellInterpolated(ORDER, vocabulary=vocab, counter=counter)
    return NgramModel(lm, float(data["low"]), float(data["high"]))


def ngram_cache_path() -> Path:
    tag = f"py{sysconfig.get_python_version()}"
    return default_cache_dir() / f"fluency-trigram-{tag}-v{NGRAM_VERSION}.json.gz"


@functools.cache
def _ngram() -> NgramModel:
    """The stdlib trigram model: read from the cache, or trained and cached (corrupt or
    stale files are rebuilt; a cache that cannot be written only costs the next process)."""
    path = ngram_cache_path()
    try:
        with gzip.open(path, "rt", encoding="utf-8") as stream:
            return _from_counts(json.load(stream))
    except FileNotFoundError:
        pass
    except Exception as error:  # corrupt, truncated or stale: rebuild
        log.warning("fluency n-gram cache %s is unusable (%s); rebuilding", path, error)
    began = time.monotonic()
    model, counts = train(stdlib_paragraphs())
    log.info("fluency n-gram model trained in %.1f s", time.monotonic() - began)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with gzip.open(partial, "wt", encoding="utf-8") as stream:
            json.dump(counts, stream, separators=(",", ":"))
        partial.replace(path)  # atomic: a reader never sees half a file
    except OSError as error:
        log.warning("fluency n-gram model could not be cached in %s: %s", path, error)
    return model


def preload(model: str | None = None) -> None:
    """Load (or train) the fluency model now, in a thread off the editor's hot path."""
    fluency("Load the model.", model)
