"""SONAR's Fluency: how natural a docstring's description reads, from a language model.

Only the description's prose is scored (``prose_lm.description``: the text before the first
section, without doctests and literal blocks): sections, names and code are not prose.

With a causal LM (GPT-2 small when a copy is on this machine, or any configured model
folder) the score is SONAR's: F = clip((ln 500 - ln ppl) / (ln 500 - ln 8), 0, 1),
truncated at 1024 tokens. Nothing is ever downloaded.

Without one, the default: an interpolated Kneser-Ney trigram model of the descriptions of
the docstrings of the standard library and the installed packages (``prose_lm``), trained
once in a process of its own and kept in docfact's cache folder. Its score is the text's
SLOR (log-probability per token beyond its words' unigram frequencies, so rare words are
not mistaken for bad prose), placed between two anchors measured on held-out
descriptions: the 90th percentile of the real ones scores 1, the 90th percentile of the
same with their words shuffled scores 0. It reads at most the first 1024 tokens.

Measured on CPython 3.11 and this venv's packages (50k distinct description paragraphs,
45k trained on, a 9k-token vocabulary): on the 745 descriptions of docfact's own
docstrings (not in the corpus) the real one scores higher than the same words shuffled in
742 pairs, 99.6 % (bench/fluency_pairs.py); median fluency 0.37 against 0.00. Training
takes about 35 s of CPU once; the model file is about 3.4 MB and loads in about 1.5 s.
"""

from __future__ import annotations

import functools
import gzip
import json
import logging
import math
import os
import subprocess
import sys
import sysconfig
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cache import default_cache_dir
from . import prose_lm
from .prose_lm import description, tokens

log = logging.getLogger(__name__)

SONAR_LOW, SONAR_HIGH = 8.0, 500.0  # GPT-2 perplexities that map to 1 and to 0
MAX_TOKENS = 1024
MAX_CHARS = 64 * MAX_TOKENS  # no 1024 tokens span more; spares tokenizing a huge text
GPT2_IDS = ("openai-community/gpt2", "gpt2")

TRAIN_TIMEOUT_S = 900.0
_load_lock = threading.Lock()  # callers run in threads: load (or train) each model once


def normalised(ppl: float, low: float = SONAR_LOW, high: float = SONAR_HIGH) -> float:
    """clip((ln high - ln ppl) / (ln high - ln low), 0, 1)."""
    if math.isnan(ppl):
        return 0.0
    if ppl <= 0:
        return 1.0
    return min(1.0, max(0.0, (math.log(high) - math.log(ppl)) / (math.log(high) - math.log(low))))


# In ``how`` when the causal LM could not be had (transformers or torch missing, a broken
# folder) and the n-gram model measured instead.
NOT_LOADED = "could not be loaded"


def fell_back(how: str) -> bool:
    """Whether ``fluency``'s ``how`` says the causal LM it was to use could not be loaded:
    a value of what this environment lacks, which the next run, with the model's
    dependencies installed, may measure otherwise (so never cached as the model's)."""
    return f" {NOT_LOADED} (" in how


def fluency(text: str, model: str | None = None) -> tuple[float | None, str]:
    """The fluency of the description of the docstring ``text`` in [0, 1] (None when it
    cannot be measured) and how it was measured. ``model``: a local causal LM folder or a
    hub id already in the local cache."""
    if not isinstance(text, str):
        return None, "no text"
    if not text.strip():
        return None, "empty text"
    text = _clean(description(text))
    if not text:
        return None, "no description prose to score (only sections or code)"
    failure = ""
    source = model or _cached_gpt2()
    if source:
        with _load_lock:
            lm = _causal_lm(source)
        if isinstance(lm, str):
            failure = f"{source} {NOT_LOADED} ({lm}); "
        else:
            return lm.score(text)
    try:
        with _load_lock:
            prose = prose_model()
    except Exception as error:  # a broken corpus or cache must not break a check
        log.warning("fluency: the prose language model is unavailable: %s", error)
        return None, f"{failure}no language model: {error}"
    found = tokens(text)[:MAX_TOKENS]
    if not found:
        return None, f"{failure}no words to score"
    value, slor, perplexity = prose.score(found)
    return value, (
        f"{failure}Kneser-Ney trigram of docstring descriptions: SLOR {slor:.2f} "
        f"(perplexity {perplexity:.1f}) over {len(found)} tokens "
        f"(anchors {prose.salad:.2f} salad .. {prose.fluent:.2f} fluent)"
    )


def fluency_identity(model: str | None = None) -> str | None:
    """What a fluency value depends on besides the text, without loading any model: the
    causal LM's id or folder, else the stored prose model's file and time; None when the
    prose model is not trained yet."""
    source = model or _cached_gpt2()
    if source:
        config = Path(source) / "config.json"
        return f"{source}@{config.stat().st_mtime_ns}" if config.is_file() else source
    path = prose_model_path()
    try:
        return f"{path.name}@{path.stat().st_mtime_ns}"
    except OSError:
        return None


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
        import torch  # noqa: F401  (transformers' models need it: missing, nothing loads)
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as error:
        return f"transformers is not installed: {error}"
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
        # safetensors only: weights in a pickle would run code while they load
        model = AutoModelForCausalLM.from_pretrained(
            source, local_files_only=True, use_safetensors=True
        )
    except Exception as error:  # a pickle, garbage, a file: any failure is one message
        reason = " ".join(f"{type(error).__name__}: {error}".split())[:200]
        log.warning("fluency model %s is not a causal language model folder (%s)", source, reason)
        return f"not a causal language model folder with safetensors weights ({reason})"
    model.eval()
    positions = (
        getattr(model.config, "n_positions", None)
        or getattr(model.config, "max_position_embeddings", None)
        or MAX_TOKENS
    )
    name = Path(source).name if Path(source).exists() else source
    return _CausalLm(name, tokenizer, model, min(MAX_TOKENS, positions))


# --- the default: a Kneser-Ney model of docstring descriptions ---------------------


def prose_model_path() -> Path:
    tag = f"py{sysconfig.get_python_version()}"
    return default_cache_dir() / f"fluency-prose-kn-{tag}-v{prose_lm.VERSION}.json.gz"


@functools.cache
def prose_model() -> prose_lm.ProseModel:
    """The prose model: read from the cache folder, or trained there first (a corrupt or
    stale file is trained again)."""
    path = prose_model_path()
    try:
        return read_model(path)
    except FileNotFoundError:
        pass
    except Exception as error:  # corrupt, truncated or stale: train again
        log.warning("fluency model %s is unusable (%s); training it again", path, error)
    began = time.monotonic()
    path.parent.mkdir(parents=True, exist_ok=True)
    package_root = str(Path(__file__).resolve().parents[2])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-m", "docfact.sonar.prose_lm", str(path.absolute())],
        env=env,
        cwd=os.sep,  # `-m` imports from the working folder first (3.10: whatever the env)
        capture_output=True,
        text=True,
        timeout=TRAIN_TIMEOUT_S,
    )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        raise RuntimeError(f"training failed: {lines[-1] if lines else done.returncode}")
    log.info("fluency: the prose language model was trained in %.0f s", time.monotonic() - began)
    return read_model(path)


def read_model(path: Path) -> prose_lm.ProseModel:
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        return prose_lm.from_json(json.load(stream))


def preload(model: str | None = None) -> None:
    """Load (or train) the fluency model now, off the editor's hot path."""
    fluency("Load the model.", model)
